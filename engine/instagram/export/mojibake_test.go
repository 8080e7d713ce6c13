package export_test

import (
	"testing"

	"glimpse/engine/instagram/export"
)

func TestRepairMojibake(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"ASCII username", "river.kim", "river.kim"},
		{"Latin-1 escape of é", "caf\u00c3\u00a9", "café"},
		{"pt-BR label", "Nome de usu\u00c3\u00a1rio", "Nome de usuário"},
		{"Russian label", "\u00d0\u0098\u00d0\u00bc\u00d1\u008f", "Имя"},
		{"emoji with C1 bytes", "\u00f0\u009f\u0098\u0080", "😀"},
		{"Windows-1252 apostrophe", "it\u00e2\u20ac\u2122s", "it’s"},
		{"Windows-1252 emoji", "\u00f0\u0178\u02dc\u20ac", "😀"},
		{"garbled twice", "caf\u00c3\u0083\u00c2\u00a9", "café"},
		{"correct é stays", "café", "café"},
		{"correct Cyrillic stays", "Имя пользователя", "Имя пользователя"},
		{"lone Ã stays", "Ã", "Ã"},
		{"euro sign stays", "€5", "€5"},
		{"typographic quotes stay", "“Hi”", "“Hi”"},
		{"rune beyond one byte stays", "caf\u00c3\u00a9 😀", "caf\u00c3\u00a9 😀"},
		{"invalid UTF-8 stays", "\xff\xfe", "\xff\xfe"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := export.RepairMojibake(tc.in); got != tc.want {
				t.Errorf("RepairMojibake(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
