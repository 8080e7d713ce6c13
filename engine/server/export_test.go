package server

// PageCacheStats exposes the page cache's size to the external tests.
func (s *Server) PageCacheStats() (entries, bytes int) { return s.pages.stats() }
