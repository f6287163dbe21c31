package main

func main() { undefined() }
