/*
 * pingpong.c: the MPICH side of scripts/shm-vs-mpich.sh. It measures what
 * samples/osu measures, the same way: the 8-byte one-way latency (rank 0
 * sends, rank 1 sends back; half the mean round trip after WARMUP untimed
 * round trips) and the 1 MiB bandwidth (rank 0 posts a window of 64
 * MPI_Isend, rank 1 64 MPI_Irecv, both wait for all, rank 1 acknowledges
 * with 4 bytes; BW_ITERS timed windows after 2 untimed ones).
 *
 * Build: mpicc -O2 -o pingpong pingpong.c
 * Run:   mpirun -np 2 ./pingpong [LAT_ITERS [WARMUP [BW_ITERS]]]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WINDOW = 64, BW_SIZE = 1 << 20 };

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int lat_iters = argc > 1 ? atoi(argv[1]) : 10000;
    int warmup = argc > 2 ? atoi(argv[2]) : 10000;
    int bw_iters = argc > 3 ? atoi(argv[3]) : 200;
    char *buf = malloc((size_t)WINDOW * BW_SIZE);
    char ack[4];
    MPI_Request reqs[WINDOW];
    if (buf == NULL) {
        fprintf(stderr, "pingpong: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* Written, as OSU's benchmarks and samples/osu set their buffers:
     * memory never written is the zero page mapped again and again, and
     * copying from it reads one page that stays in the cache. */
    memset(buf, me == 0 ? 'a' : 'b', (size_t)WINDOW * BW_SIZE);

    double t0 = 0;
    for (int i = -warmup; i < lat_iters; i++) {
        if (i == 0)
            t0 = MPI_Wtime();
        if (me == 0) {
            MPI_Send(buf, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (me == 1) {
            MPI_Recv(buf, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        }
    }
    if (me == 0)
        printf("latency 8 B: %.3f us\n", (MPI_Wtime() - t0) * 1e6 / (2.0 * lat_iters));

    for (int i = -2; i < bw_iters; i++) {
        if (i == 0)
            t0 = MPI_Wtime();
        for (int w = 0; w < WINDOW && me < 2; w++) {
            if (me == 0)
                MPI_Isend(buf + (size_t)w * BW_SIZE, BW_SIZE, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &reqs[w]);
            else
                MPI_Irecv(buf + (size_t)w * BW_SIZE, BW_SIZE, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &reqs[w]);
        }
        if (me < 2)
            MPI_Waitall(WINDOW, reqs, MPI_STATUSES_IGNORE);
        if (me == 0)
            MPI_Recv(ack, 4, MPI_CHAR, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else if (me == 1)
            MPI_Send(ack, 4, MPI_CHAR, 0, 101, MPI_COMM_WORLD);
    }
    if (me == 0)
        printf("bw 1048576 B: %.2f MB/s\n", (double)BW_SIZE * WINDOW * bw_iters / (MPI_Wtime() - t0) / 1e6);
    free(buf);
    MPI_Finalize();
    return 0;
}
