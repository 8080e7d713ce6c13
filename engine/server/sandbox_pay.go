package server

import (
	"bytes"
	"embed"
	"errors"
	"html/template"
	"io"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine/billing"
	"glimpse/engine/brand"
)

// The sandbox's hosted payment page: the stand-in, in this binary, for
// Stripe's checkout.stripe.com. It is a plain server-rendered form with a
// little script of its own (card fields that group digits and add the
// expiry's slash, as Stripe's do), outside the Glimpse renderer and its
// actions, so no /ui/actions/* request ever carries a card number. Paying
// here sends the sandbox's signed event through the same verification and
// fulfilment as Stripe's webhook (billing.Service.PayOnSandbox). Its script
// and styles are files of ours, so the page keeps the strict CSP.

//go:embed sandboxpay
var sandboxPayFiles embed.FS

var sandboxPayTemplate = template.Must(template.ParseFS(sandboxPayFiles, "sandboxpay/page.html"))

// pathSandboxPayStatic serves the page's script and styles.
const pathSandboxPayStatic = billing.PathSandboxPay + "static/"

// mountSandboxPay adds the page's routes when the sandbox is the provider.
func (s *Server) mountSandboxPay() {
	if s.Billing == nil || s.Billing.Provider().Name() != "sandbox" {
		return
	}
	s.app.Get(pathSandboxPayStatic+":file", s.sandboxPayStatic)
	s.app.Get(billing.PathSandboxPay+":session", s.sandboxPayPage)
	s.app.Post(billing.PathSandboxPay+":session", s.checkSameOrigin, s.sandboxPaySubmit)
}

func (s *Server) sandboxPayStatic(c fiber.Ctx) error {
	types := map[string]string{"pay.js": "text/javascript; charset=utf-8", "pay.css": "text/css; charset=utf-8"}
	file := c.Params("file")
	ct, ok := types[file]
	if !ok {
		return fiber.ErrNotFound
	}
	b, err := sandboxPayFiles.ReadFile("sandboxpay/" + file)
	if err != nil {
		return fiber.ErrNotFound
	}
	c.Set(fiber.HeaderContentType, ct)
	c.Set(fiber.HeaderCacheControl, "no-cache")
	return c.Send(b)
}

// sandboxPayView is what the page's template fills in.
type sandboxPayView struct {
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
func (v sandboxPayView) T(key string) string { return v.copy.T(key) }

func (s *Server) sandboxPayPage(c fiber.Ctx) error {
	page, err := s.Billing.SandboxPage(c.Context(), c.Params("session"))
	if errors.Is(err, billing.ErrNoSession) {
		return fiber.ErrNotFound
	}
	if err != nil {
		return err
	}
	if page.Step == "complete" {
		return c.Redirect().Status(fiber.StatusSeeOther).To(page.SuccessURL)
	}
	return s.renderSandboxPay(c, fiber.StatusOK, page, sandboxPayForm{}, "", nil)
}

// sandboxPayForm is the page's form.
type sandboxPayForm struct {
	Step   string `validate:"required,oneof=card saved authenticate fail"`
	Number string `validate:"max=32"`
	Expiry string `validate:"max=16"`
	CVC    string `validate:"max=8"`
}

// maxSandboxPayBody bounds the page's form: four short fields.
const maxSandboxPayBody = 2 << 10

// parseSandboxPayForm reads the form's urlencoded body.
func parseSandboxPayForm(body []byte) (sandboxPayForm, error) {
	v, err := url.ParseQuery(string(body))
	if err != nil {
		return sandboxPayForm{}, err
	}
	return sandboxPayForm{Step: v.Get("step"), Number: v.Get("number"), Expiry: v.Get("expiry"), CVC: v.Get("cvc")}, nil
}

func (s *Server) sandboxPaySubmit(c fiber.Ctx) error {
	id := c.Params("session")
	body, err := io.ReadAll(io.LimitReader(requestBody(c), maxSandboxPayBody+1))
	if err != nil || len(body) > maxSandboxPayBody {
		return fiber.ErrBadRequest
	}
	form, err := parseSandboxPayForm(body)
	if err != nil || s.validate.Struct(form) != nil {
		return fiber.ErrBadRequest
	}
	page, err := s.Billing.PayOnSandboxLimited(c.Context(), billing.SandboxPayRequest{Session: id, Step: form.Step,
		Card: billing.ParseCardForm(form.Number, form.Expiry, form.CVC)})
	if errors.Is(err, billing.ErrNoSession) {
		return fiber.ErrNotFound
	}
	if err != nil {
		fields, message, known := sandboxPayError(err)
		if !known {
			return err
		}
		page, perr := s.Billing.SandboxPage(c.Context(), id)
		if perr != nil {
			return perr
		}
		return s.renderSandboxPay(c, fiber.StatusUnprocessableEntity, page, form, message, fields)
	}
	if page.Step == "complete" {
		return c.Redirect().Status(fiber.StatusSeeOther).To(page.SuccessURL)
	}
	return c.Redirect().Status(fiber.StatusSeeOther).To(billing.PathSandboxPay + url.PathEscape(id))
}

// sandboxPayError puts a refusal under the field it is about, as copy keys
// (the page's texts are the brand's copy); a decline is the form's.
func sandboxPayError(err error) (fields map[string]string, message string, known bool) {
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

func (s *Server) renderSandboxPay(c fiber.Ctx, status int, page billing.SandboxPage, form sandboxPayForm, message string, fields map[string]string) error {
	copy := s.Brands.Copy(s.Brands.Get(page.Brand))
	price := page.Amount.String()
	v := sandboxPayView{SandboxPage: page, copy: copy, Merchant: s.Brands.Get(page.Brand).Name, Price: price,
		PayLabel: strings.ReplaceAll(copy.T("sandboxPay.pay"), "{amount}", price), Errors: map[string]string{},
		Number: form.Number, Expiry: form.Expiry, CVC: form.CVC}
	if page.Mode == billing.SessionSetup {
		v.PayLabel = copy.T("sandboxPay.save")
	}
	period, err := s.Billing.HostedPagePeriod(c.Context(), page.ID)
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
	if err := sandboxPayTemplate.Execute(&out, v); err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Set(fiber.HeaderCacheControl, "no-store")
	// The page's form posts to itself: with no-referrer the browser sends
	// "Origin: null", which the same-origin check refuses. same-origin still
	// sends nothing to any other site.
	c.Set(fiber.HeaderReferrerPolicy, "same-origin")
	return c.Status(status).Send(out.Bytes())
}
