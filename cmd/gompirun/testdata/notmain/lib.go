// Package notmain is a library, not a program: gompirun must say so
// rather than try to run what go build makes of it.
package notmain

// Answer exists so that the package has something in it.
func Answer() int { return 42 }
