module github.com/gompi/gompi

go 1.26.0

require (
	github.com/cpuguy83/go-md2man/v2 v2.0.7
	github.com/vmihailenco/msgpack/v5 v5.4.1
	golang.org/x/sys v0.49.0
)

require (
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/vmihailenco/tagparser/v2 v2.0.0 // indirect
)
