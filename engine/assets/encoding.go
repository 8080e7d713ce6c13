package assets

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Encoding is a content coding a file or a cached page is kept in. The
// compress middleware (fasthttp's) offers br, gzip, deflate and zstd; what is
// kept is kept in br, zstd and gzip, which every browser and HTTP client takes
// between them. A client that accepts only deflate gets identity, and the
// middleware's own compression, as before.
type Encoding uint8

// The codings, in the server's order of preference after identity.
const (
	Identity Encoding = iota
	Brotli
	Zstd
	Gzip
	// NumEncodings is how many there are, for arrays indexed by Encoding.
	NumEncodings
)

// encodingNames are the tokens of Accept-Encoding and Content-Encoding.
var encodingNames = [NumEncodings]string{"identity", "br", "zstd", "gzip"}

// String is the coding's token in Accept-Encoding and Content-Encoding.
func (e Encoding) String() string { return encodingNames[e] }

// Negotiate picks the coding for a response from an Accept-Encoding
// header (RFC 9110 §12.5.3): the highest q-value among the codings offered,
// the server's order (br, zstd, gzip) breaking ties; "*" stands for any
// coding not named; a q of 0 refuses. Identity answers when nothing offered
// is acceptable: a cached page is small, so a refused identity is not
// honoured with a 406. It does not allocate.
func Negotiate(header string) Encoding {
	switch header {
	case "":
		return Identity
	case browserAcceptEncoding, browserZstdAcceptEncoding:
		// Nearly every request carries one of these; reading them again
		// each time cost a screen request 3% (engine/server's BenchmarkScreenRequest).
		return Brotli
	}
	return parseAcceptEncoding(header)
}

// The Accept-Encoding headers browsers send: Chromium and Firefox, then both
// since they took up zstd (a test checks the full parse gives the same).
const (
	browserAcceptEncoding     = "gzip, deflate, br"
	browserZstdAcceptEncoding = "gzip, deflate, br, zstd"
)

func parseAcceptEncoding(header string) Encoding {
	// q-values in thousandths; -1 is "not named".
	q := [NumEncodings]int{-1, -1, -1, -1}
	star := -1
	for part := range strings.SplitSeq(header, ",") {
		name, params, _ := strings.Cut(part, ";")
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		weight := 1000
		for param := range strings.SplitSeq(params, ";") {
			k, v, ok := strings.Cut(param, "=")
			if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
				continue
			}
			w, ok := parseQValue(strings.TrimSpace(v))
			if !ok {
				w = 0 // a malformed weight makes the coding unusable rather than preferred
			}
			weight = w
		}
		if name == "*" {
			star = max(star, weight)
			continue
		}
		for e := Brotli; e < NumEncodings; e++ {
			if strings.EqualFold(name, encodingNames[e]) {
				q[e] = max(q[e], weight)
			}
		}
		// "x-gzip" is gzip (RFC 9110 §8.4.1.3).
		if strings.EqualFold(name, "x-gzip") {
			q[Gzip] = max(q[Gzip], weight)
		}
	}
	best, bestQ := Identity, 0
	for e := Brotli; e < NumEncodings; e++ {
		w := q[e]
		if w < 0 {
			w = star
		}
		if w > bestQ {
			best, bestQ = e, w
		}
	}
	return best
}

// parseQValue reads a weight (RFC 9110 §12.4.2: "0", "1", or up to three
// decimals) as thousandths.
func parseQValue(s string) (int, bool) {
	if s == "" || len(s) > 5 || (s[0] != '0' && s[0] != '1') {
		return 0, false
	}
	whole := int(s[0] - '0')
	if len(s) == 1 {
		return whole * 1000, true
	}
	if s[1] != '.' {
		return 0, false
	}
	frac, scale := 0, 100
	for i := 2; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		frac += int(s[i]-'0') * scale
		scale /= 10
	}
	if whole == 1 && frac != 0 {
		return 0, false
	}
	return whole*1000 + frac, true
}

// Compress encodes a body once, at the best compression each coding has: it
// is done once per file or cached page and encoding, not per request.
func Compress(e Encoding, body []byte) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(body)/4 + 64)
	switch e {
	case Brotli:
		w := brotli.NewWriterLevel(&buf, brotli.BestCompression)
		if _, err := w.Write(body); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
	case Zstd:
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		out := enc.EncodeAll(body, make([]byte, 0, len(body)/4+64))
		_ = enc.Close()
		return out, nil
	case Gzip:
		w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(body); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
	default:
		return body, nil
	}
	return buf.Bytes(), nil
}

// ETag names one encoding of a page by its hash: a strong ETag names one
// representation, so each coding has its own ("…-br").
func ETag(hash uint64, e Encoding) string {
	tag := strconv.FormatUint(hash, 36)
	if e != Identity {
		tag += "-" + e.String()
	}
	return `"` + tag + `"`
}
