/*
 * coll.c: the MPICH side of scripts/coll-vs-mpich.sh. It measures what
 * samples/osu measures for a collective, the same way: for each size (MIN,
 * then the powers of two above it up to MAX; barrier: one row, size 0),
 * WARMUP untimed calls, a barrier, ITERS timed calls (a tenth of both,
 * ITERS at least 10, above 8 KiB), and the mean time of a call averaged
 * over the ranks, in microseconds, on size/8 doubles (at least one; per
 * destination for alltoall; sum to rank 0 for reduce). With SETTLE_MS,
 * the first size is first repeated untimed, in batches of 100 calls,
 * until rank 0 has spent that long on it (samples/osu -settle). With
 * LONGEST 1, each timed call is timed alone and a row gives the longest
 * call of any rank too, and its mean is that of the timed calls
 * (samples/osu -longest).
 *
 * Build: mpicc -O2 -o coll coll.c
 * Run:   mpirun -np 2 ./coll TEST MIN MAX ITERS WARMUP [SETTLE_MS [LONGEST]]
 *        TEST: allreduce, bcast, reduce, alltoall or barrier
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* call makes one call of the collective TEST on n doubles. */
static void call(const char *test, int barrier, double *in, double *out, int n) {
    if (barrier)
        MPI_Barrier(MPI_COMM_WORLD);
    else if (test[0] == 'a' && test[3] == 'r')
        MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    else if (test[0] == 'b')
        MPI_Bcast(in, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    else if (test[0] == 'r')
        MPI_Reduce(in, out, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    else
        MPI_Alltoall(in, n, MPI_DOUBLE, out, n, MPI_DOUBLE, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc < 6 || argc > 8) {
        if (me == 0)
            fprintf(stderr, "usage: coll TEST MIN MAX ITERS WARMUP [SETTLE_MS [LONGEST]]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *test = argv[1];
    long min = atol(argv[2]), max = atol(argv[3]);
    int iters = atoi(argv[4]), warmup = atoi(argv[5]);
    double settle = argc >= 7 ? atof(argv[6]) / 1e3 : 0;
    int longest = argc == 8 && atoi(argv[7]) != 0;
    int barrier = strcmp(test, "barrier") == 0;
    if (!barrier && strcmp(test, "allreduce") && strcmp(test, "bcast") &&
        strcmp(test, "reduce") && strcmp(test, "alltoall")) {
        if (me == 0)
            fprintf(stderr, "coll: unknown test %s\n", test);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long maxn = max / 8 > 1 ? max / 8 : 1;
    double *in = calloc((size_t)maxn * np, sizeof(double));
    double *out = calloc((size_t)maxn * np, sizeof(double));
    if (in == NULL || out == NULL) {
        fprintf(stderr, "coll: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* Written, as samples/osu sets its buffers (pingpong.c says why). */
    for (long i = 0; i < maxn * np; i++) {
        in[i] = 1;
        out[i] = 0;
    }
    if (me == 0)
        printf("# MPICH %s test, %d ranks\n# Size         Latency (us)%s\n", test, np,
               longest ? "  Longest call (us)" : "");
    long size = barrier ? 0 : min;
    int more = settle > 0;
    double s0 = MPI_Wtime();
    while (more) {
        int n = size / 8 > 1 ? (int)(size / 8) : 1;
        for (int i = 0; i < 100; i++)
            call(test, barrier, in, out, n);
        if (me == 0 && MPI_Wtime() - s0 >= settle)
            more = 0;
        MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    for (;;) {
        int n = size / 8 > 1 ? (int)(size / 8) : 1;
        int it = iters, wu = warmup;
        if (size > 8192) {
            it = iters / 10 > 10 ? iters / 10 : 10;
            wu = warmup / 10;
        }
        double t0 = 0, slowest = 0, timed = 0;
        for (int i = 0; i < wu + it; i++) {
            if (i == wu) {
                MPI_Barrier(MPI_COMM_WORLD);
                t0 = MPI_Wtime();
            }
            double start = longest ? MPI_Wtime() : 0;
            call(test, barrier, in, out, n);
            if (longest && i >= wu) {
                double d = MPI_Wtime() - start;
                if (d > slowest)
                    slowest = d;
                timed += d;
            }
        }
        /* With longest, the mean of the timed calls alone, as samples/osu's. */
        double mine = (longest ? timed : MPI_Wtime() - t0) * 1e6 / it, sum = 0, most = 0;
        MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        slowest *= 1e6;
        MPI_Allreduce(&slowest, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (me == 0 && longest)
            printf("%-12ld %18.3f %18.3f\n", size, sum / np, most);
        else if (me == 0)
            printf("%-12ld %18.3f\n", size, sum / np);
        if (barrier)
            break;
        long next = 1;
        while (next <= size)
            next *= 2;
        if (next > max)
            break;
        size = next;
    }
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
