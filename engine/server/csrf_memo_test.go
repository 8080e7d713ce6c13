package server

import (
	"fmt"
	"testing"
)

func TestTokenMemoStaysBoundedAndKeepsRecentBrowsers(t *testing.T) {
	var m tokenMemo
	if _, ok := m.get("a"); ok {
		t.Fatal("an empty memo knows a token")
	}
	for i := range 3 * memoGeneration {
		m.put(fmt.Sprint("browser-", i), fmt.Sprint("token-", i))
	}
	if n := len(m.cur) + len(m.old); n > 2*memoGeneration {
		t.Fatalf("the memo holds %d tokens, more than two generations", n)
	}
	last := 3*memoGeneration - 1
	if got, ok := m.get(fmt.Sprint("browser-", last)); !ok || got != fmt.Sprint("token-", last) {
		t.Fatalf("the newest browser's token: %q %v", got, ok)
	}
	if got, ok := m.get(fmt.Sprint("browser-", last-memoGeneration)); !ok || got != fmt.Sprint("token-", last-memoGeneration) {
		t.Fatalf("a browser of the previous generation was forgotten: %q %v", got, ok)
	}
	if _, ok := m.get("browser-0"); ok {
		t.Fatal("a browser two generations old is still kept")
	}
}
