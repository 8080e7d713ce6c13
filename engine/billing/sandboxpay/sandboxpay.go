// Package sandboxpay is the sandbox's hosted payment page: the stand-in, in
// this binary, for Stripe's checkout.stripe.com. It is a payment
// provider's page, not a Glimpse screen, so it is an http.Handler of its
// own beside the sandbox (billing.Sandbox), mounted by the server's route
// table like any other handler.
//
// The page is a plain server-rendered form with a little script of its own
// (card fields that group digits and add the expiry's slash, as Stripe's
// do), outside the Glimpse renderer and its actions, so no /ui/actions/*
// request ever carries a card number. Paying here sends the sandbox's
// signed event through the same verification and fulfilment as Stripe's
// webhook (billing.Service.PayOnSandbox). Its script and styles are files
// of ours, so the page keeps the strict CSP the server sets.
package sandboxpay

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strings"

	"glimpse/engine/billing"
	"glimpse/engine/brand"
)

//go:embed page.html pay.css pay.js
var files embed.FS

var pageTemplate = template.Must(template.ParseFS(files, "page.html"))

// PathStatic serves the page's script and styles.
const PathStatic = billing.PathSandboxPay + "static/"

// Billing is what the page needs of the billing service.
type Billing interface {
	SandboxPage(ctx context.Context, sessionID string) (billing.SandboxPage, error)
	PayOnSandboxLimited(ctx context.Context, req billing.SandboxPayRequest) (billing.SandboxPage, error)
	HostedPagePeriod(ctx context.Context, sessionID string) (string, error)
}

// Brands names a page's merchant and gives its words.
type Brands interface {
	Get(key string) brand.Brand
	Copy(b brand.Brand) brand.Copy
}

// Handler serves the page: GET PathStatic+file, GET and POST
// billing.PathSandboxPay+session. The caller checks a POST's origin first.
type Handler struct {
	Billing Billing
	Brands  Brands
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, billing.PathSandboxPay)
	if !ok || rest == "" || strings.Contains(strings.TrimPrefix(rest, "static/"), "/") {
		http.NotFound(w, r)
		return
	}
	var err error
	switch file, static := strings.CutPrefix(rest, "static/"); {
	case static && r.Method == http.MethodGet:
		err = serveStatic(w, file)
	case static:
		err = methodNotAllowed(w, http.MethodGet)
	case r.Method == http.MethodGet:
		err = h.page(w, r, rest)
	case r.Method == http.MethodPost:
		err = h.submit(w, r, rest)
	default:
		err = methodNotAllowed(w, http.MethodGet+", "+http.MethodPost)
	}
	var status statusError
	switch {
	case err == nil:
	case errors.As(err, &status):
		http.Error(w, http.StatusText(int(status)), int(status))
	default:
		http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
	}
}

// statusError answers with its status and no more.
type statusError int

func (e statusError) Error() string { return http.StatusText(int(e)) }

func methodNotAllowed(w http.ResponseWriter, allow string) error {
	w.Header().Set("Allow", allow)
	return statusError(http.StatusMethodNotAllowed)
}

func serveStatic(w http.ResponseWriter, file string) error {
	types := map[string]string{"pay.js": "text/javascript; charset=utf-8", "pay.css": "text/css; charset=utf-8"}
	ct, ok := types[file]
	if !ok {
		return statusError(http.StatusNotFound)
	}
	b, err := files.ReadFile(file)
	if err != nil {
		return statusError(http.StatusNotFound)
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "no-cache")
	_, err = w.Write(b)
	return err
}

func (h *Handler) page(w http.ResponseWriter, r *http.Request, session string) error {
	page, err := h.Billing.SandboxPage(r.Context(), session)
	if errors.Is(err, billing.ErrNoSession) {
		return statusError(http.StatusNotFound)
	}
	if err != nil {
		return err
	}
	if page.Step == "complete" {
		http.Redirect(w, r, page.SuccessURL, http.StatusSeeOther)
		return nil
	}
	return h.render(w, r, http.StatusOK, page, Form{}, "", nil)
}

// Form is the page's form.
type Form struct {
	Step, Number, Expiry, CVC string
}

// maxBody bounds the page's form: four short fields.
const maxBody = 2 << 10

// ParseForm reads the form's urlencoded body; a step the page does not
// have, or a field longer than any card's, is refused.
func ParseForm(body []byte) (Form, error) {
	v, err := url.ParseQuery(string(body))
	if err != nil {
		return Form{}, err
	}
	f := Form{Step: v.Get("step"), Number: v.Get("number"), Expiry: v.Get("expiry"), CVC: v.Get("cvc")}
	switch f.Step {
	case "card", "saved", "authenticate", "fail":
	default:
		return Form{}, errors.New("sandbox page: unknown step")
	}
	if len(f.Number) > 32 || len(f.Expiry) > 16 || len(f.CVC) > 8 {
		return Form{}, errors.New("sandbox page: a field is too long")
	}
	return f, nil
}

func (h *Handler) submit(w http.ResponseWriter, r *http.Request, id string) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		return statusError(http.StatusBadRequest)
	}
	form, err := ParseForm(body)
	if err != nil {
		return statusError(http.StatusBadRequest)
	}
	page, err := h.Billing.PayOnSandboxLimited(r.Context(), billing.SandboxPayRequest{Session: id, Step: form.Step,
		Card: billing.ParseCardForm(form.Number, form.Expiry, form.CVC)})
	if errors.Is(err, billing.ErrNoSession) {
		return statusError(http.StatusNotFound)
	}
	if err != nil {
		fields, message, known := refusal(err)
		if !known {
			return err
		}
		page, perr := h.Billing.SandboxPage(r.Context(), id)
		if perr != nil {
			return perr
		}
		return h.render(w, r, http.StatusUnprocessableEntity, page, form, message, fields)
	}
	to := billing.PathSandboxPay + url.PathEscape(id)
	if page.Step == "complete" {
		to = page.SuccessURL
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
	return nil
}

// refusal puts a refusal under the field it is about, as copy keys (the
// page's texts are the brand's copy); a decline is the form's.
func refusal(err error) (fields map[string]string, message string, known bool) {
	switch {
	case errors.Is(err, billing.ErrCardInvalid):
		return map[string]string{"number": "sandboxPay.numberInvalid"}, "", true
	case errors.Is(err, billing.ErrExpiryInvalid):
		return map[string]string{"expiry": "sandboxPay.expiryIncomplete"}, "", true
	case errors.Is(err, billing.ErrCardExpired):
		return map[string]string{"expiry": "sandboxPay.expiryPast"}, "", true
	case errors.Is(err, billing.ErrCVCInvalid):
		return map[string]string{"cvc": "sandboxPay.cvcIncomplete"}, "", true
	case errors.Is(err, billing.ErrCardDeclined):
		return nil, "sandboxPay.declined", true
	case errors.Is(err, billing.ErrAuthenticationFailed):
		return nil, "sandboxPay.authFailed", true
	case errors.Is(err, billing.ErrSessionClosed):
		return nil, "sandboxPay.expired", true
	case errors.Is(err, billing.ErrTooManyDeclines):
		return nil, "sandboxPay.tooManyDeclines", true
	}
	return nil, "", false
}

// view is what the page's template fills in.
type view struct {
	billing.SandboxPage
	copy      brand.Copy
	Merchant  string
	Price     string
	Every     string // the price and how often it renews: "$13.99 every 1 month"
	For       string // the address the page is for, as Stripe's page shows it
	PayLabel  string
	SavedCard string
	Challenge string
	AuthText  string
	FormError string
	Errors    map[string]string
	Number    string
	Expiry    string
	CVC       string
}

// T is the brand's copy for key (the page's words are the brand's).
func (v view) T(key string) string { return v.copy.T(key) }

func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, page billing.SandboxPage, form Form, message string, fields map[string]string) error {
	b := h.Brands.Get(page.Brand)
	copy := h.Brands.Copy(b)
	price := page.Amount.String()
	v := view{SandboxPage: page, copy: copy, Merchant: b.Name, Price: price,
		PayLabel: strings.ReplaceAll(copy.T("sandboxPay.pay"), "{amount}", price), Errors: map[string]string{},
		Number: form.Number, Expiry: form.Expiry, CVC: form.CVC}
	if page.Mode == billing.SessionSetup {
		v.PayLabel = copy.T("sandboxPay.save")
	}
	period, err := h.Billing.HostedPagePeriod(r.Context(), page.ID)
	if err != nil {
		return err
	}
	v.Every = price
	if period != "" {
		v.Every = strings.NewReplacer("{price}", price, "{period}", period).Replace(copy.T("sandboxPay.every"))
	}
	if page.Email != "" {
		v.For = strings.ReplaceAll(copy.T("sandboxPay.email"), "{email}", page.Email)
	}
	if page.Saved.Last4 != "" {
		v.SavedCard = brand.CardLabel(page.Saved.Brand, page.Saved.Last4)
	}
	if page.Challenge.Last4 != "" {
		v.Challenge = brand.CardLabel(page.Challenge.Brand, page.Challenge.Last4)
		v.AuthText = strings.NewReplacer("{amount}", price, "{card}", v.Challenge).Replace(copy.T("sandboxPay.authText"))
	}
	if message != "" {
		v.FormError = copy.T(message)
	}
	for field, key := range fields {
		v.Errors[field] = copy.T(key)
	}
	var out bytes.Buffer
	if err := pageTemplate.Execute(&out, v); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	// The page's form posts to itself: with no-referrer the browser sends
	// "Origin: null", which the same-origin check refuses. same-origin still
	// sends nothing to any other site.
	w.Header().Set("Referrer-Policy", "same-origin")
	w.WriteHeader(status)
	_, err = w.Write(out.Bytes())
	return err
}
