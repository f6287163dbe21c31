package mpi

import "github.com/vmihailenco/msgpack/v5"

// Object messages: any Go value msgpack-encoded, the analogue of mpi4py's
// lowercase send/recv. The receiver does not need to know the size.

// SendObject encodes v with msgpack and sends it to dest (comm.send in
// mpi4py).
func (c *Comm) SendObject(v any, dest, tag int) error {
	b, err := msgpack.Marshal(v)
	if err != nil {
		return &Error{Class: ClassArg, Msg: "SendObject: cannot encode value", Err: err}
	}
	return Send(c, b, dest, tag)
}

// RecvObject receives an object message and decodes it into ptr, which must
// be a non-nil pointer (comm.recv in mpi4py).
func (c *Comm) RecvObject(ptr any, source, tag int) (Status, error) {
	st, err := c.Probe(source, tag)
	if err != nil || st.Source == ProcNull {
		return st, err
	}
	buf := make([]byte, st.Bytes)
	st, err = Recv(c, buf, st.Source, st.Tag)
	if err != nil {
		return st, err
	}
	if err := msgpack.Unmarshal(buf, ptr); err != nil {
		return st, &Error{Class: ClassType, Msg: "RecvObject: cannot decode message", Err: err}
	}
	return st, nil
}

// RecvObj is RecvObject returning the value: v, st, err := mpi.RecvObj[T](c, src, tag).
func RecvObj[T any](c *Comm, source, tag int) (T, Status, error) {
	var v T
	st, err := c.RecvObject(&v, source, tag)
	return v, st, err
}
