package mpi

// Zero-count messages. The typed calls infer their element type from the
// buffer, so a nil buffer needs it spelled out: mpi.Send[byte](c, nil,
// dest, tag). SendEmpty and RecvEmpty say the same without a type: a
// message that carries only its envelope (source, tag), the usual
// signal or token of a protocol.

// SendEmpty sends a message with no data to dest (MPI_Send with count 0).
func (c *Comm) SendEmpty(dest, tag int) error {
	return Send[byte](c, nil, dest, tag)
}

// RecvEmpty receives a message with no data (MPI_Recv with count 0) and
// returns its status. A message that carries data matches too, as in MPI,
// and is then a truncation error (ErrTruncate).
func (c *Comm) RecvEmpty(source, tag int) (Status, error) {
	return Recv[byte](c, nil, source, tag)
}
