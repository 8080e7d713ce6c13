package export

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"time"
)

// errShape means a file is valid JSON but not in any shape an export uses.
var errShape = errors.New("not an Instagram list")

// markers records the traits of the 2025 layout seen while decoding
// (docs/instagram.md §4.2, last row), for the Layout field.
type markers struct {
	uHref       bool // an href with /_u/ (Oct 2025)
	titleOnly   bool // a username only in title (following.json, 2025)
	labelValues bool // a Form 3 entry
}

func (m markers) any() bool { return m.uHref || m.titleOnly || m.labelValues }

func (m markers) or(o markers) markers {
	return markers{uHref: m.uHref || o.uHref, titleOnly: m.titleOnly || o.titleOnly, labelValues: m.labelValues || o.labelValues}
}

// entry is the union of the three entry shapes of docs/instagram.md §4.3. Unknown
// fields (media_list_data, fbid, media, …) are ignored by the decoder.
type entry struct {
	Title          string       `json:"title"`
	StringListData []stringItem `json:"string_list_data"`
	LabelValues    []labelValue `json:"label_values"`
	Timestamp      int64        `json:"timestamp"`
}

type stringItem struct {
	Href      string `json:"href"`
	Value     string `json:"value"`
	Timestamp int64  `json:"timestamp"`
}

type labelValue struct {
	Label string `json:"label"`
	Value string `json:"value"`
	Href  string `json:"href"`
}

// entryFields are the keys that mark a root object as a single entry: a file
// holding one entry may hold the bare object instead of an array (§4.3).
var entryFields = map[string]bool{
	"title": true, "string_list_data": true, "label_values": true, "timestamp": true,
	"media_list_data": true, "media": true, "fbid": true,
}

// decodeList streams the entries of one list file to emit and returns how
// many entries had no username. It accepts every root §4.3 and §4.4 describe:
// a bare array (Form 1, Form 3); an object whose array-valued properties are
// the list, whatever the wrapper key is called (relationships_followers,
// relationships_following, …: §4.4's single array-valued property,
// loosened to any, since the key names change); and a bare object that is
// itself one entry. Entries are decoded one at a time, so memory holds one
// entry plus the accounts emitted so far, never the whole file.
func decodeList(r io.Reader, m *markers, emit func(Account)) (skipped int, err error) {
	l := &listDecoder{dec: newDecoder(r), markers: m, emit: emit}
	tok, err := l.dec.Token()
	if err != nil {
		return 0, noEOF(err)
	}
	switch tok {
	case json.Delim('['):
		err = l.array()
	case json.Delim('{'):
		err = l.object()
	default:
		err = errShape
	}
	if err != nil {
		return l.skipped, err
	}
	return l.skipped, end(l.dec)
}

type listDecoder struct {
	dec     *json.Decoder
	markers *markers
	emit    func(Account)
	skipped int
}

// array decodes the entries of an array whose '[' has been read, and its ']'.
func (l *listDecoder) array() error {
	for l.dec.More() {
		var e entry
		if err := decodeLenient(l.dec, &e); err != nil {
			return err
		}
		l.add(&e)
	}
	_, err := l.dec.Token()
	return err
}

// object decodes the rest of an object whose '{' has been read: wrapper keys
// holding arrays are streamed, entry fields make it a bare entry, anything
// else is skipped.
func (l *listDecoder) object() error {
	var e entry
	bare := false
	for l.dec.More() {
		tok, err := l.dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var target any
		switch key {
		case "title":
			target = &e.Title
		case "string_list_data":
			target = &e.StringListData
		case "label_values":
			target = &e.LabelValues
		case "timestamp":
			target = &e.Timestamp
		}
		switch {
		case target != nil:
			bare = true
			if err := decodeLenient(l.dec, target); err != nil {
				return err
			}
		case entryFields[key]:
			bare = true
			if err := skip(l.dec); err != nil {
				return err
			}
		default:
			tok, err := l.dec.Token()
			if err != nil {
				return err
			}
			switch tok {
			case json.Delim('['):
				err = l.array()
			case json.Delim('{'):
				err = skipRest(l.dec)
			}
			if err != nil {
				return err
			}
		}
	}
	if _, err := l.dec.Token(); err != nil {
		return err
	}
	if bare {
		l.add(&e)
	}
	return nil
}

func (l *listDecoder) add(e *entry) {
	if a, ok := e.account(l.markers); ok {
		l.emit(a)
	} else {
		l.skipped++
	}
}

// account extracts the account in the order of §4.3: string_list_data[0].value,
// then title, then a label meaning "username" (after mojibake repair), then
// the last path segment of href.
func (e *entry) account(m *markers) (Account, bool) {
	var href, name string
	var ts int64
	if len(e.StringListData) > 0 {
		s := e.StringListData[0]
		href, name, ts = s.Href, cleanName(s.Value), s.Timestamp
	}
	if name == "" {
		if name = cleanName(e.Title); name != "" {
			m.titleOnly = true
		}
	}
	if len(e.LabelValues) > 0 {
		m.labelValues = true
		for _, lv := range e.LabelValues {
			label := RepairMojibake(lv.Label)
			switch {
			case name == "" && isUsernameLabel(label):
				name = cleanName(lv.Value)
			case href == "" && strings.EqualFold(strings.TrimSpace(label), "url"):
				href = strings.TrimSpace(lv.Value)
				if href == "" {
					href = strings.TrimSpace(lv.Href)
				}
			}
		}
	}
	if strings.Contains(href, "/_u/") {
		m.uHref = true
	}
	if name == "" {
		name = usernameFromHref(href)
	}
	if name == "" {
		return Account{}, false
	}
	if ts == 0 {
		ts = e.Timestamp
	}
	if strings.HasSuffix(href, name) {
		// Share the href's bytes: a million usernames then cost no
		// allocation of their own.
		name = href[len(href)-len(name):]
	}
	return Account{Username: name, Href: href, FollowedAt: unix(ts)}, true
}

func cleanName(s string) string {
	return RepairMojibake(strings.TrimPrefix(strings.TrimSpace(s), "@"))
}

func unix(ts int64) time.Time {
	if ts <= 0 {
		return time.Time{}
	}
	return time.Unix(ts, 0).UTC()
}

// usernameLabels are the lower-cased words for "user" in the labels of Form 3
// entries and string_map_data keys, which follow the account's language
// (§4.3: Portuguese "Nome de usuário"; §4.5: Dutch labels). docs/instagram.md names
// English and Portuguese; the rest are Instagram's usual translations and may
// need extending when a real export shows otherwise.
var usernameLabels = []string{
	"user", "usuário", "usuario", "utilisateur", "benutzer", "gebruiker", "utente",
	"użytkownik", "kullanıcı", "пользовател", "користувач", "ユーザー", "사용자", "用户",
	"用戶", "pengguna", "brukernavn", "användarnamn", "käyttäjä", "brugernavn",
}

func isUsernameLabel(label string) bool {
	label = strings.ToLower(label)
	for _, word := range usernameLabels {
		if strings.Contains(label, word) {
			return true
		}
	}
	return false
}

// usernameFromHref returns the last path segment of a profile link, without
// the query, the fragment and the /_u/ prefix of 2025 links (§4.2).
func usernameFromHref(href string) string {
	href, _, _ = strings.Cut(href, "?")
	href, _, _ = strings.Cut(href, "#")
	href = strings.TrimRight(href, "/")
	i := strings.LastIndexByte(href, '/')
	if i < 0 {
		return ""
	}
	name := href[i+1:]
	if name == "_u" || strings.Contains(name, ":") {
		return ""
	}
	return cleanName(name)
}

// decodeFlat reads the ≤ 2020 connections.json (§4.2, first row):
// {"followers": {"alice": "2019-06-15T12:34:56+00:00", …}, "following": {…}}.
// lists maps a top-level key to the list it fills; a key that is present
// makes its list non-nil even when empty.
func decodeFlat(r io.Reader, lists map[string]*[]Account) error {
	dec := newDecoder(r)
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		list, ok := lists[key]
		if !ok {
			if err := skip(dec); err != nil {
				return err
			}
			continue
		}
		if *list == nil {
			*list = []Account{}
		}
		tok, err = dec.Token()
		if err != nil {
			return err
		}
		if tok != json.Delim('{') {
			if err := skipTail(dec, tok); err != nil {
				return err
			}
			continue
		}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return err
			}
			name, _ := tok.(string)
			if tok, err = dec.Token(); err != nil {
				return err
			}
			var at time.Time
			if s, ok := tok.(string); ok {
				at, _ = time.Parse(time.RFC3339, s)
			} else if err := skipTail(dec, tok); err != nil {
				return err
			}
			if name = cleanName(name); name != "" {
				*list = append(*list, Account{Username: name, FollowedAt: at.UTC()})
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	return end(dec)
}

// decodeOwner reads the owner's username from personal_information.json
// (profile_user[0].string_map_data, key "Username" or its translation, §4.5)
// or from the ≤ 2020 profile.json (a top-level "username", unverified,
// docs/instagram.md §4.5).
func decodeOwner(r io.Reader) (string, error) {
	var doc struct {
		ProfileUser []struct {
			StringMapData map[string]struct {
				Value string `json:"value"`
			} `json:"string_map_data"`
		} `json:"profile_user"`
		Username string `json:"username"`
	}
	dec := newDecoder(r)
	if err := decodeLenient(dec, &doc); err != nil {
		return "", noEOF(err)
	}
	if err := end(dec); err != nil {
		return "", err
	}
	for _, user := range doc.ProfileUser {
		for key, v := range user.StringMapData {
			if isUsernameLabel(RepairMojibake(key)) {
				if name := cleanName(v.Value); name != "" {
					return name, nil
				}
			}
		}
	}
	return cleanName(doc.Username), nil
}

// decodeEarliest returns the earliest positive "timestamp" anywhere in the
// document. It reads signup_details.json, whose shape is not
// known (docs/instagram.md §4.5), so it looks for the key at any depth.
func decodeEarliest(r io.Reader) (time.Time, error) {
	dec := newDecoder(r)
	var earliest float64
	// objects[i] says whether the i-th open container is an object; wantKey
	// whether the next string in the innermost object is a key.
	var objects []bool
	wantKey, key := false, ""
	for {
		tok, err := dec.Token()
		if err != nil {
			return time.Time{}, noEOF(err)
		}
		if s, ok := tok.(string); ok && wantKey {
			key, wantKey = s, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			objects = append(objects, true)
			wantKey = true
			continue
		case json.Delim('['):
			objects = append(objects, false)
			continue
		case json.Delim('}'), json.Delim(']'):
			objects = objects[:len(objects)-1]
		default:
			if t, ok := tok.(float64); ok && key == "timestamp" && t > 0 && (earliest == 0 || t < earliest) {
				earliest = t
			}
		}
		// A value (scalar or container) has ended.
		if len(objects) == 0 {
			if err := end(dec); err != nil {
				return time.Time{}, err
			}
			break
		}
		wantKey = objects[len(objects)-1]
	}
	if earliest == 0 || earliest > 1<<40 {
		return time.Time{}, nil
	}
	return unix(int64(earliest)), nil
}

// decodeLenient decodes the next value into v. A value of the wrong type
// for a field is not an error (the decoder has consumed it and filled what it
// could): export shapes drift, and a type mismatch is not malformed JSON.
func decodeLenient(dec *json.Decoder, v any) error {
	var typeErr *json.UnmarshalTypeError
	if err := dec.Decode(v); err != nil && !errors.As(err, &typeErr) {
		return noEOF(err)
	}
	return nil
}

// skip consumes the next value, whatever it is, holding at most one token.
func skip(dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return noEOF(err)
	}
	return skipTail(dec, tok)
}

// skipTail consumes the rest of the value that starts with tok.
func skipTail(dec *json.Decoder, tok json.Token) error {
	if tok == json.Delim('{') || tok == json.Delim('[') {
		return skipRest(dec)
	}
	return nil
}

// skipRest consumes the rest of an object or array whose opening delimiter
// has been read.
func skipRest(dec *json.Decoder) error {
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return noEOF(err)
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return noEOF(err)
	}
	if tok != want {
		return errShape
	}
	return nil
}

// end checks that nothing but white space follows the document. Reading to
// the end also makes archive/zip verify the file's checksum.
func end(dec *json.Decoder) error {
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			return errors.New("data after the end of the JSON document")
		}
		return err
	}
	return nil
}

// noEOF turns an early end of input into an error: an empty or truncated
// file is malformed, not an empty list.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
