// Package content embeds the seed content of Glimpse: brands with their
// themes and copy, and the static images the screens show. On first start the
// binary copies it into MongoDB, where editors change it without a redeploy.
package content

import "embed"

// Brands holds brands/<key>.json: each brand's name, bundle, theme and copy.
//
//go:embed brands/*.json
var Brands embed.FS

// Static holds the images served under /static/. "all:" because go:embed
// otherwise skips names starting with '_', and the partner brands' folders
// are static/brands/_x_ and _y_.
//
//go:embed all:static
var Static embed.FS

// Library holds what subscribers read: insights, articles, topics and news,
// as Markdown with front matter (see README.md in this folder).
//
//go:embed insights articles news legal lessons
var Library embed.FS
