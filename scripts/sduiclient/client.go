// Package sduiclient speaks to a running Glimpse as its renderer does, for
// the measuring scripts (scalebench, deskbench): the page shell first for its
// CSRF token, then screens and actions as JSON with the protocol's headers
// (engine/ui/protocol.md), cookies kept in a jar.
package sduiclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"time"
)

// Client is one browser: its cookies, its CSRF token, and the client
// address it claims (ForwardedFor, sent as X-Forwarded-For when set, so
// that per-address rate limits see many people rather than one).
type Client struct {
	Base, CSRF   string
	ForwardedFor string
	HTTP         *http.Client
}

// New is a browser with an empty cookie jar.
func New(base string) *Client {
	jar, _ := cookiejar.New(nil)
	return &Client{Base: base, HTTP: &http.Client{Jar: jar, Timeout: 2 * time.Minute}}
}

var csrfMeta = regexp.MustCompile(`<meta name="glimpse-csrf" content="([^"]+)">`)

// Boot opens the page shell at path as a browser tab does and keeps its
// CSRF token.
func (c *Client) Boot(path string) error {
	req, _ := http.NewRequest(http.MethodGet, c.Base+path, nil)
	req.Header.Set("Accept", "text/html")
	body, err := c.Do(req)
	if err != nil {
		return err
	}
	m := csrfMeta.FindSubmatch(body)
	if m == nil {
		return errors.New("no CSRF token in the page shell")
	}
	c.CSRF = string(m[1])
	return nil
}

// Answer is what a screen request returns: the screen (absent when the
// server sends the browser on), its effects, and a fresh CSRF token.
type Answer struct {
	Screen  json.RawMessage `json:"screen"`
	Effects []struct {
		Type, To string
	} `json:"effects"`
	Meta struct {
		CSRF string `json:"csrf"`
	} `json:"meta"`
}

// Screen asks for the screen at path and returns the answer and its raw
// body.
func (c *Client) Screen(path string) (Answer, []byte, error) {
	req, _ := http.NewRequest(http.MethodGet, c.Base+"/ui/screen?path="+url.QueryEscape(path), nil)
	req.Header.Set("X-SDUI-Version", "1")
	req.Header.Set("Accept", "application/json")
	body, err := c.Do(req)
	if err != nil {
		return Answer{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	var a Answer
	if err := json.Unmarshal(body, &a); err != nil {
		return Answer{}, nil, fmt.Errorf("%s: %w: %.200s", path, err, body)
	}
	if a.Meta.CSRF != "" {
		c.CSRF = a.Meta.CSRF
	}
	return a, body, nil
}

// Action posts the named action from the screen at path with values, as a
// same-origin fetch with the CSRF token.
func (c *Client) Action(path, name string, values map[string]any) ([]byte, error) {
	raw, _ := json.Marshal(map[string]any{"values": values, "path": path})
	req, _ := http.NewRequest(http.MethodPost, c.Base+"/ui/actions/"+name, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-SDUI-Version", "1")
	req.Header.Set("X-CSRF-Token", c.CSRF)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("Origin", c.Base)
	body, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return body, nil
}

// Do sends req from this browser and returns the body of a 200, keeping a
// CSRF token the answer renews.
func (c *Client) Do(req *http.Request) ([]byte, error) {
	if c.ForwardedFor != "" {
		req.Header.Set("X-Forwarded-For", c.ForwardedFor)
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if tok := res.Header.Get("X-CSRF-Token"); tok != "" {
		c.CSRF = tok
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d: %.300s", res.StatusCode, body)
	}
	return body, nil
}
