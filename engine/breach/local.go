package breach

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
)

// Paths LocalProvider reads inside its fs.FS (the repository's fixtures/).
const (
	LocalCataloguePath = "breaches/catalogue.json"
	LocalAccountsPath  = "breaches/accounts.json"
	// LocalFailuresPath is optional: addresses whose lookup fails on
	// purpose, so the screen's error states can be shown without HIBP.
	LocalFailuresPath = "breaches/failures.json"
)

// LocalProvider answers from a fictional dataset in the HIBP format, so the
// app works with no API key and no network (the demo, tests, a laptop). Its
// answers are sample data and Sample says so.
type LocalProvider struct {
	catalogue []Breach
	accounts  map[string][]string // normalised email → breach names
	failures  map[string]int      // normalised email → HTTP status to act out
}

var _ Provider = (*LocalProvider)(nil)

// NewLocalProvider reads the dataset from fsys at LocalCataloguePath,
// LocalAccountsPath and, when present, LocalFailuresPath. It fails when an
// account names a breach the catalogue lacks, so a broken fixture is caught
// at start rather than on a screen.
func NewLocalProvider(fsys fs.FS) (*LocalProvider, error) {
	p := &LocalProvider{}
	if err := readJSON(fsys, LocalCataloguePath, &p.catalogue); err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, b := range p.catalogue {
		if b.Name == "" || names[b.Name] {
			return nil, fmt.Errorf("breach: %s: empty or repeated name %q", LocalCataloguePath, b.Name)
		}
		names[b.Name] = true
	}

	var accounts map[string][]string
	if err := readJSON(fsys, LocalAccountsPath, &accounts); err != nil {
		return nil, err
	}
	p.accounts = make(map[string][]string, len(accounts))
	for email, list := range accounts {
		for _, name := range list {
			if !names[name] {
				return nil, fmt.Errorf("breach: %s: %s names unknown breach %q", LocalAccountsPath, email, name)
			}
		}
		p.accounts[normaliseEmail(email)] = list
	}

	var failures map[string]int
	if err := readJSON(fsys, LocalFailuresPath, &failures); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	p.failures = make(map[string]int, len(failures))
	for email, status := range failures {
		p.failures[normaliseEmail(email)] = status
	}
	return p, nil
}

func readJSON(fsys fs.FS, path string, out any) error {
	b, err := fs.ReadFile(fsys, path)
	if err != nil {
		return fmt.Errorf("breach: read %s: %w", path, err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("breach: decode %s: %w", path, err)
	}
	return nil
}

// Sample reports true: the data is fictional.
func (p *LocalProvider) Sample() bool { return true }

// BreachedAccount returns the names listed for email; an address not listed
// has not been pwned. Addresses in the failures file fail as HIBP would with
// that status (429 with a 2 s retry-after, 400, 401, 503, …).
func (p *LocalProvider) BreachedAccount(ctx context.Context, email string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	email = normaliseEmail(email)
	if email == "" {
		return nil, fmt.Errorf("%w: empty address", ErrInvalidAccount)
	}
	if status, ok := p.failures[email]; ok {
		return nil, fmt.Errorf("sample breached account: %w", statusError(status))
	}
	names := p.accounts[email]
	if names == nil {
		return []string{}, nil
	}
	return slices.Clone(names), nil
}

// Catalogue returns a copy of the sample catalogue.
func (p *LocalProvider) Catalogue(ctx context.Context) ([]Breach, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]Breach, len(p.catalogue))
	for i, b := range p.catalogue {
		b.DataClasses = slices.Clone(b.DataClasses)
		out[i] = b
	}
	return out, nil
}

// statusError is the error Client returns for an HIBP status.
func statusError(status int) error {
	switch {
	case status == 400:
		return fmt.Errorf("%w: HIBP answered 400", ErrInvalidAccount)
	case status == 401, status == 403:
		return fmt.Errorf("%w: HIBP answered %d", ErrMisconfigured, status)
	case status == 429:
		return &RateLimitedError{RetryAfter: defaultRetryAfter}
	default:
		return fmt.Errorf("%w: HIBP answered %d", ErrUnavailable, status)
	}
}
