package export

import (
	"unicode/utf8"
)

// RepairMojibake undoes UTF-8 text that was decoded as Latin-1 and encoded
// again: Instagram writes "é" as the JSON escapes \u00c3\u00a9, which decode
// to "Ã©" (docs/instagram.md §4.3, Form 3 and "Mojibake"). It also undoes the
// Windows-1252 variant ("â€™" for "’") that tools re-saving the files produce.
//
// The rule is that of docs/instagram.md §4.3: when every rune fits in one byte (Latin-1, or
// one of the 27 Windows-1252 punctuation runes) and some are ≥ 0x80, take the
// runes as bytes; keep the result only if those bytes are valid UTF-8. Real
// text rarely passes: a lone "é" or "€" becomes a byte that is not valid
// UTF-8, so it is left alone. Text garbled twice is repaired twice.
func RepairMojibake(s string) string {
	for range 3 {
		repaired, ok := undoLatin1(s)
		if !ok {
			break
		}
		s = repaired
	}
	return s
}

// undoLatin1 does one round of the repair, reporting whether it applied.
func undoLatin1(s string) (string, bool) {
	high := false
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			high = true
			break
		}
	}
	if !high {
		return s, false // ASCII, the usual case for usernames
	}
	out := make([]byte, 0, len(s))
	for _, r := range s {
		switch b, ok := windows1252[r]; {
		case r < 0x100:
			out = append(out, byte(r))
		case ok:
			out = append(out, b)
		default:
			return s, false // a rune no single byte encodes: not mojibake
		}
	}
	if !utf8.Valid(out) {
		return s, false
	}
	return string(out), true
}

// windows1252 maps the runes Windows-1252 puts at bytes 0x80–0x9F, where
// Latin-1 has control characters, back to their bytes.
var windows1252 = map[rune]byte{
	'€': 0x80, '‚': 0x82, 'ƒ': 0x83, '„': 0x84, '…': 0x85, '†': 0x86, '‡': 0x87,
	'ˆ': 0x88, '‰': 0x89, 'Š': 0x8A, '‹': 0x8B, 'Œ': 0x8C, 'Ž': 0x8E,
	'‘': 0x91, '’': 0x92, '“': 0x93, '”': 0x94, '•': 0x95, '–': 0x96, '—': 0x97,
	'˜': 0x98, '™': 0x99, 'š': 0x9A, '›': 0x9B, 'œ': 0x9C, 'ž': 0x9E, 'Ÿ': 0x9F,
}
