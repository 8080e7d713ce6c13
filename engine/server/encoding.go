package server

import "glimpse/engine/assets"

// The content codings a cached page is kept in are engine/assets' (its
// files are kept in the same); these are their names in the page cache.
type contentEncoding = assets.Encoding

const (
	encIdentity  = assets.Identity
	encBrotli    = assets.Brotli
	encZstd      = assets.Zstd
	encGzip      = assets.Gzip
	numEncodings = assets.NumEncodings
)

func negotiateEncoding(header string) contentEncoding { return assets.Negotiate(header) }

func compressBody(e contentEncoding, body []byte) ([]byte, error) { return assets.Compress(e, body) }

func etagFor(hash uint64, e contentEncoding) string { return assets.ETag(hash, e) }
