package ui

import (
	_ "embed"
	"encoding/json"
)

// IconsJSON is the icon set as SVG path data (24×24, stroked), keyed by the
// names of the icon node's name enum in schema.json. It is the one copy: the
// renderer's icon node (renderer/src/nodes/icon.tsx) imports this file and
// the server's prerenderer draws from IconPaths, so the two cannot differ.
//
//go:embed icons.json
var IconsJSON []byte

// IconPaths is IconsJSON decoded: an icon's name to its path data.
var IconPaths = func() map[string]string {
	var paths map[string]string
	if err := json.Unmarshal(IconsJSON, &paths); err != nil {
		panic("engine/ui/icons.json: " + err.Error())
	}
	return paths
}()
