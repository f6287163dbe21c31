package mpi

import (
	"errors"
	"fmt"
)

// ErrorClass is an MPI error class. Every error the library returns is an
// *Error carrying one, and errors.Is(err, ErrTruncate) (etc.) tests for it.
type ErrorClass int

const (
	ClassSuccess  ErrorClass = iota
	ClassBuffer              // MPI_ERR_BUFFER: invalid buffer
	ClassCount               // MPI_ERR_COUNT: invalid count
	ClassType                // MPI_ERR_TYPE: invalid or mismatched datatype
	ClassTag                 // MPI_ERR_TAG: invalid tag
	ClassComm                // MPI_ERR_COMM: invalid or freed communicator
	ClassRank                // MPI_ERR_RANK: invalid rank
	ClassRequest             // MPI_ERR_REQUEST: invalid request
	ClassRoot                // MPI_ERR_ROOT: invalid root
	ClassGroup               // MPI_ERR_GROUP: invalid group
	ClassOp                  // MPI_ERR_OP: invalid operation
	ClassArg                 // MPI_ERR_ARG: invalid argument
	ClassTruncate            // MPI_ERR_TRUNCATE: message truncated on receive
	ClassPending             // MPI_ERR_PENDING: request not complete (Waitall/Testall)
	ClassInStatus            // MPI_ERR_IN_STATUS: see the per-request errors
	ClassIntern              // MPI_ERR_INTERN: internal error
	ClassOther               // MPI_ERR_OTHER: anything else (transport failure, abort, deadlock)
	ClassTopology            // MPI_ERR_TOPOLOGY: the communicator lacks the topology the call needs, or the grid does not fit
	ClassDims                // MPI_ERR_DIMS: invalid dimension argument
)

var classNames = [...]string{
	"MPI_SUCCESS", "MPI_ERR_BUFFER", "MPI_ERR_COUNT", "MPI_ERR_TYPE", "MPI_ERR_TAG",
	"MPI_ERR_COMM", "MPI_ERR_RANK", "MPI_ERR_REQUEST", "MPI_ERR_ROOT", "MPI_ERR_GROUP",
	"MPI_ERR_OP", "MPI_ERR_ARG", "MPI_ERR_TRUNCATE", "MPI_ERR_PENDING", "MPI_ERR_IN_STATUS",
	"MPI_ERR_INTERN", "MPI_ERR_OTHER", "MPI_ERR_TOPOLOGY", "MPI_ERR_DIMS",
}

func (c ErrorClass) String() string {
	if c >= 0 && int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("ErrorClass(%d)", int(c))
}

// Error is an MPI error: a class and a message saying what happened.
type Error struct {
	Class ErrorClass
	Msg   string
	Err   error // underlying cause, if any
}

func (e *Error) Error() string {
	if e == nil {
		return "mpi: <nil>"
	}
	if e.Err != nil {
		return fmt.Sprintf("mpi: %s (%v): %v", e.Msg, e.Class, e.Err)
	}
	return fmt.Sprintf("mpi: %s (%v)", e.Msg, e.Class)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// Is matches another *Error of the same class, so the sentinels below work
// with errors.Is.
func (e *Error) Is(target error) bool {
	var t *Error
	if errors.As(target, &t) && t != nil && e != nil && t.Msg == "" && t.Err == nil {
		return t.Class == e.Class
	}
	return false
}

// Sentinels for errors.Is: errors.Is(err, mpi.ErrTruncate).
var (
	ErrBuffer   = &Error{Class: ClassBuffer}
	ErrCount    = &Error{Class: ClassCount}
	ErrType     = &Error{Class: ClassType}
	ErrTag      = &Error{Class: ClassTag}
	ErrComm     = &Error{Class: ClassComm}
	ErrRank     = &Error{Class: ClassRank}
	ErrRequest  = &Error{Class: ClassRequest}
	ErrRoot     = &Error{Class: ClassRoot}
	ErrGroup    = &Error{Class: ClassGroup}
	ErrOp       = &Error{Class: ClassOp}
	ErrArg      = &Error{Class: ClassArg}
	ErrTruncate = &Error{Class: ClassTruncate}
	ErrPending  = &Error{Class: ClassPending}
	ErrInStatus = &Error{Class: ClassInStatus}
	ErrIntern   = &Error{Class: ClassIntern}
	ErrOther    = &Error{Class: ClassOther}
	ErrTopology = &Error{Class: ClassTopology}
	ErrDims     = &Error{Class: ClassDims}
)

func errorf(class ErrorClass, format string, args ...any) *Error {
	return &Error{Class: class, Msg: fmt.Sprintf(format, args...)}
}

// ClassOf returns the MPI error class of err: ClassSuccess for nil,
// ClassOther for errors that did not come from this package.
func ClassOf(err error) ErrorClass {
	if err == nil {
		return ClassSuccess
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Class
	}
	return ClassOther
}

// AbortError is what a world returns when a rank called Abort.
type AbortError struct {
	Rank int // world rank that called Abort
	Code int // the code it passed
}

func (e *AbortError) Error() string {
	if e == nil {
		return "mpi: <nil>"
	}
	return fmt.Sprintf("mpi: rank %d called Abort(%d)", e.Rank, e.Code)
}

// RankError is what a world returns when a rank's function failed: it
// returned an error or panicked.
type RankError struct {
	Rank  int
	Err   error
	Panic bool
}

func (e *RankError) Error() string {
	if e == nil {
		return "mpi: <nil>"
	}
	if e.Panic {
		return fmt.Sprintf("mpi: rank %d panicked: %v", e.Rank, e.Err)
	}
	return fmt.Sprintf("mpi: rank %d failed: %v", e.Rank, e.Err)
}

func (e *RankError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// DeadlockError is what an in-process world returns when every rank that has
// not finished is blocked in an MPI call that nothing can complete.
type DeadlockError struct {
	Blocked []string // one line per blocked rank: where it waits
}

func (e *DeadlockError) Error() string {
	if e == nil {
		return "mpi: <nil>"
	}
	s := fmt.Sprintf("mpi: deadlock: all %d unfinished ranks are blocked", len(e.Blocked))
	for i, b := range e.Blocked {
		if i == 8 {
			s += fmt.Sprintf("; ... %d more", len(e.Blocked)-i)
			break
		}
		s += "; " + b
	}
	return s
}
