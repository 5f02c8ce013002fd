package scenarios

// ReadRegular reads a file named on the command line rather than by a scenario (a capture
// that `nodesim import` turns into a scenario) under the scenario files' own rules: a
// regular file of at most MaxFileSize bytes, refused at once when it is a device, a FIFO or
// a directory. Errors name no content.
func ReadRegular(path string) ([]byte, error) { return readRegular(path) }
