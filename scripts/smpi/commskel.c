/* commskel.c is samples/commskel in C, for SimGrid's SMPI
 * (scripts/smpi-vs-gompi.sh): each iteration every rank exchanges N doubles
 * with both ring neighbours by MPI_Sendrecv, then an MPI_Allreduce of one
 * double and an MPI_Barrier. It computes nothing. It keeps no global
 * state, so SMPI may run its ranks without privatising globals.
 *
 * Usage: commskel [ITERS [N]]   (default 10 and 1024, as samples/commskel) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int iters = argc > 1 ? atoi(argv[1]) : 10;
	int n = argc > 2 ? atoi(argv[2]) : 1024;
	int size, me;
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	if (iters < 1 || n < 0) {
		if (me == 0)
			fprintf(stderr, "commskel: ITERS must be at least 1 and N at least 0\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int right = (me + 1) % size, left = (me + size - 1) % size;
	double *send = calloc(n + 1, sizeof(double)), *recv = calloc(n + 1, sizeof(double));
	double one = 1, sum = 0;
	for (int it = 0; it < iters; it++) {
		MPI_Sendrecv(send, n, MPI_DOUBLE, right, 0, recv, n, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Sendrecv(send, n, MPI_DOUBLE, left, 1, recv, n, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	int bad = (int)sum != size;
	if (bad)
		fprintf(stderr, "rank %d: Allreduce summed %g over %d ranks\n", me, sum, size);
	else if (me == 0)
		printf("commskel: %d ranks, %d iterations of 2 Sendrecv of %d doubles, Allreduce, Barrier, done at %.9f s\n",
		       size, iters, n, MPI_Wtime());
	free(send);
	free(recv);
	MPI_Finalize();
	return bad;
}
