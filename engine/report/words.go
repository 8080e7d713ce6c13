package report

import (
	"sync"

	"glimpse/content"
	"glimpse/engine/analysis"
	"glimpse/engine/brand"
)

// defaultCopy is the default brand's shipped copy. The report is written in
// English throughout, so it words analysis codes as the default brand does,
// from the same file, rather than keeping a second English copy of them.
var defaultCopy = sync.OnceValue(func() map[string]string {
	brands, err := brand.ReadShipped(content.Brands)
	if err != nil {
		// The files are compiled into the binary and the server will not
		// start without them, so this is unreachable in a running server;
		// codes then print as they are rather than the report failing.
		return nil
	}
	for _, b := range brands {
		if b.Key == brand.DefaultKey {
			return b.Copy
		}
	}
	return nil
})

// words is the report's text for an analysis code and its args.
func words(code analysis.Code, args map[string]string) string {
	lookup := func(key string) (string, bool) {
		text, ok := defaultCopy()[key]
		return text, ok
	}
	return analysis.Words(lookup, code, args, day)
}
