/*
 * bibw.c: the MPICH side of scripts/bibw-vs-mpich.sh. It measures what
 * samples/osu -test bibw measures, the same way: for each size from MIN to
 * MAX (doubling), ranks 0 and 1 each post a window of WINDOW MPI_Irecv and
 * then WINDOW MPI_Isend to the other, wait for all, and acknowledge the
 * window to each other with 4 bytes; WARMUP untimed windows, then ITERS
 * timed ones. It prints "SIZE MB/s" per size: bytes moved in both
 * directions together per second (10^6 bytes).
 *
 * Build: mpicc -O2 -o bibw bibw.c
 * Run:   mpirun -np 2 ./bibw MIN MAX ITERS WARMUP WINDOW
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (argc != 6) {
        if (me == 0)
            fprintf(stderr, "usage: bibw MIN MAX ITERS WARMUP WINDOW\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long min = atol(argv[1]), max = atol(argv[2]);
    int iters = atoi(argv[3]), warmup = atoi(argv[4]), window = atoi(argv[5]);
    if (min < 1 || max < min || iters < 1 || warmup < 0 || window < 1 || window > 1024) {
        if (me == 0)
            fprintf(stderr, "bibw: bad arguments\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* Separate send and receive buffers, written, as samples/osu has them. */
    char *rbuf = malloc((size_t)window * max), *sbuf = malloc((size_t)window * max);
    MPI_Request *reqs = malloc(2 * (size_t)window * sizeof *reqs);
    if (rbuf == NULL || sbuf == NULL || reqs == NULL) {
        fprintf(stderr, "bibw: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(rbuf, 'a' + me, (size_t)window * max);
    memset(sbuf, 'a' + me, (size_t)window * max);
    char ack[4];
    int peer = 1 - me;
    for (long size = min; size <= max && me < 2; size *= 2) {
        double t0 = 0;
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = MPI_Wtime();
            int n = 0;
            for (int w = 0; w < window; w++)
                MPI_Irecv(rbuf + (size_t)w * size, (int)size, MPI_CHAR, peer, 100, MPI_COMM_WORLD, &reqs[n++]);
            for (int w = 0; w < window; w++)
                MPI_Isend(sbuf + (size_t)w * size, (int)size, MPI_CHAR, peer, 100, MPI_COMM_WORLD, &reqs[n++]);
            MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
            MPI_Send(ack, 4, MPI_CHAR, peer, 101, MPI_COMM_WORLD);
            MPI_Recv(ack, 4, MPI_CHAR, peer, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        double el = MPI_Wtime() - t0;
        if (me == 0)
            printf("%ld %.2f\n", size, 2.0 * size * window * iters / el / 1e6);
    }
    free(reqs);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
