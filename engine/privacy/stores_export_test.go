package privacy

// StoresOf returns the stores a Service runs on, for the tests to read and
// stage what the service stores.
func StoresOf(s *Service) Stores { return s.st }
