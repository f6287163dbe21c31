//go:build !linux

package mpi

// prepareVirtualHeap advises huge pages for a virtual world's heap on
// Linux (heap_linux.go); elsewhere it does nothing.
func prepareVirtualHeap(ranks int) {}
