package main

// errorStatus maps an error that is not a usage error or an interruption
// to its exit status.
func errorStatus(err error) int {
	return exitError
}
