package ui

import "encoding/json"

func marshalString(s string) []byte {
	b, _ := json.Marshal(s) // a string always encodes
	return b
}

func marshalAny(v any) ([]byte, error) { return json.Marshal(v) }
