package mail

import (
	"bytes"
	"html/template"
	"regexp"
	"strings"

	"glimpse/engine"
)

// Templates. The comment names the Data each one needs.
const (
	TemplateActivation    = "activation"     // Data: "link" (create-account page /access-recovery?key=…), "email"
	TemplatePurchase      = "purchase"       // after checkout: Data "link" (create account), "plan", "price", "email", "period", "renewDate"
	TemplatePasswordReset = "password_reset" // Data: "link", "minutes" (lifetime)
	TemplateCancelConfirm = "cancel_confirm" // cancel-by-email: Data "link" (/unsubscription?from=…), "email"
	TemplatePaymentFailed = "payment_failed" // renewal failed: Data "link" (update card), "plan", "retryDate"
	// TemplateConfirmPayment is a renewal the bank refused until the
	// subscriber authenticates it: Data "link" (/checkout/confirm?token=…),
	// "plan", "price", "retryDate".
	TemplateConfirmPayment = "confirm_payment"
	TemplateCanceled       = "canceled"       // subscription canceled: Data "plan", "endDate"
	TemplateReceipt        = "receipt"        // every successful charge: Data "item", "price", "date", "card", "number"; operator and support come from the Sender
	TemplateProfileReport  = "profile_report" // the report, attached as PDF: Data "email"
	// TemplateProfileReportPending is the profile report bought before the
	// profile was analysed: it says the report is mailed as soon as the
	// analysis is ready, and where to start one. Data "email", "link"
	// (Analytics).
	TemplateProfileReportPending = "profile_report_pending"
	TemplateAccountExists        = "account_exists" // an activation asked for an address with an account: Data "link" (sign-in), "email"
	TemplateDataExport           = "data_export"    // the person's data is ready: Data "link" (download), "expires"
	TemplateAccountErased        = "account_erased" // the account was deleted: Data "email", "years" (how long receipts are kept)
	TemplateInactivity           = "inactivity"     // the account is deleted soon for disuse: Data "email", "date", "link" (sign-in)
	// Every change to a plan is confirmed in writing.
	TemplateResumed     = "resumed"      // a cancel taken back: Data "plan", "price", "period", "date" (the next charge)
	TemplatePlanChange  = "plan_change"  // a plan change scheduled: Data "plan", "price", "period", "date" (from when)
	TemplatePlanKept    = "plan_kept"    // a scheduled change undone: Data "plan", "price", "period", "date" (the next charge)
	TemplateExtended    = "extended"     // the period moved on for free: Data "plan", "date" (its new end)
	TemplateCardUpdated = "card_updated" // the saved card replaced: Data "plan", "card"
	// TemplateRefunded is money given back: Data "amount", "item", "card",
	// "date" (of the payment), "effect" (what the refund ends, in the
	// brand's words).
	TemplateRefunded = "refunded"
)

// required lists each template's Data keys; "link" also means the mail has
// a button.
var required = map[string][]string{
	TemplateActivation:           {"link", "email"},
	TemplatePurchase:             {"link", "plan", "price", "email", "period", "renewDate"},
	TemplatePasswordReset:        {"link", "minutes"},
	TemplateCancelConfirm:        {"link", "email"},
	TemplatePaymentFailed:        {"link", "plan", "retryDate"},
	TemplateConfirmPayment:       {"link", "plan", "price", "retryDate"},
	TemplateCanceled:             {"plan", "endDate"},
	TemplateReceipt:              {"item", "price", "date", "card", "number", "operator", "support"},
	TemplateProfileReport:        {"email"},
	TemplateProfileReportPending: {"email", "link"},
	TemplateAccountExists:        {"link", "email"},
	TemplateDataExport:           {"link", "expires"},
	TemplateAccountErased:        {"email", "years"},
	TemplateInactivity:           {"email", "date", "link"},
	TemplateResumed:              {"plan", "price", "period", "date"},
	TemplatePlanChange:           {"plan", "price", "period", "date"},
	TemplatePlanKept:             {"plan", "price", "period", "date"},
	TemplateExtended:             {"plan", "date"},
	TemplateCardUpdated:          {"plan", "card"},
	TemplateRefunded:             {"amount", "item", "card", "date", "effect"},
}

// optional lists the Data keys a template's copy may hold that can be
// empty: a sentence that only some mails of the template need. An absent
// one reads as nothing.
var optional = map[string][]string{
	TemplateCanceled: {"dropped"},
	TemplateReceipt:  {"period", "refunded"},
}

// Templates lists every template name.
func Templates() []string {
	return []string{TemplateActivation, TemplatePurchase, TemplatePasswordReset, TemplateCancelConfirm,
		TemplatePaymentFailed, TemplateConfirmPayment, TemplateCanceled, TemplateReceipt, TemplateProfileReport, TemplateProfileReportPending,
		TemplateAccountExists, TemplateDataExport, TemplateAccountErased, TemplateInactivity,
		TemplateResumed, TemplatePlanChange, TemplatePlanKept, TemplateExtended, TemplateCardUpdated, TemplateRefunded}
}

// Required returns the Data keys a template needs.
func Required(tmpl string) []string { return append([]string(nil), required[tmpl]...) }

// rendered is a mail's subject and bodies.
type rendered struct {
	Subject, Text, HTML string
}

// htmlView is what the HTML template fills in; every field is escaped by
// html/template, and a Link of another scheme becomes "#ZgotmplZ".
type htmlView struct {
	Subject, Heading, Button, LinkHint, Footer string
	Paragraphs                                 []string
	Link, LinkText                             string
}

// htmlTemplate is inline-styled HTML with no remote images, so it reads the
// same in clients that block them.
var htmlTemplate = template.Must(template.New("mail").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>{{.Subject}}</title></head>
<body style="margin:0;padding:0;background:#f4f6fb;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;color:#141a33">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f6fb"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:480px;background:#ffffff;border-radius:12px;border:1px solid #e3e7f0">
<tr><td style="padding:28px 24px">
<h1 style="margin:0 0 16px;font-size:22px;line-height:1.3">{{.Heading}}</h1>
{{range .Paragraphs}}<p style="margin:0 0 16px;font-size:16px;line-height:1.5">{{.}}</p>
{{end}}{{if .Link}}<p style="margin:24px 0"><a href="{{.Link}}" style="display:inline-block;background:#3d5afe;color:#ffffff;text-decoration:none;font-weight:600;padding:12px 20px;border-radius:8px">{{.Button}}</a></p>
<p style="margin:0 0 16px;font-size:13px;line-height:1.5;color:#5b6478">{{.LinkHint}}<br><a href="{{.Link}}" style="color:#3d5afe;word-break:break-all">{{.LinkText}}</a></p>
{{end}}</td></tr>
<tr><td style="padding:16px 24px;border-top:1px solid #e3e7f0;font-size:12px;line-height:1.5;color:#5b6478">{{.Footer}}</td></tr>
</table></td></tr></table>
</body></html>
`))

// placeholder matches {name} in copy.
var placeholder = regexp.MustCompile(`\{[A-Za-z][A-Za-z0-9_]*\}`)

// render fills the brand's copy for m's template with m.Data.
func (o *Outbox) render(m Message) (rendered, error) {
	need, ok := required[m.Template]
	if !ok {
		return rendered{}, engine.Errorf(engine.CodeInvalid, "mail: unknown template %q", m.Template)
	}
	data := make(map[string]string, len(m.Data))
	if o.sender != nil {
		from := o.sender(m.Brand)
		data["brand"], data["operator"], data["support"] = from.Brand, from.Operator, from.Support
	}
	for _, k := range optional[m.Template] {
		data[k] = ""
	}
	for k, v := range m.Data {
		data[k] = v
	}
	for _, k := range need {
		if strings.TrimSpace(data[k]) == "" {
			return rendered{}, engine.Errorf(engine.CodeInvalid, "mail: template %q needs data %q", m.Template, k)
		}
	}
	if link, ok := data["link"]; ok && strings.HasPrefix(link, "/") && !strings.HasPrefix(link, "//") {
		data["link"] = o.linkBase(m.Brand) + link
	}
	c := o.copy(m.Brand)
	fill := func(key string) string {
		return placeholder.ReplaceAllStringFunc(c.T(key), func(p string) string {
			if v, ok := data[p[1:len(p)-1]]; ok {
				return v
			}
			return p
		})
	}
	prefix := "mail." + m.Template + "."
	r := rendered{Subject: fill(prefix + "subject")}
	heading, body, footer := fill(prefix+"heading"), fill(prefix+"body"), fill("mail.footer")
	// A body's lines are paragraphs of their own (a receipt's details).
	paragraphs := append([]string{fill("mail.greeting")}, strings.Split(body, "\n")...)
	if o.demo {
		data["subject"] = r.Subject
		r.Subject = fill("mail.demoSubject")
		paragraphs = append([]string{fill("mail.demo")}, paragraphs...)
	}
	var text strings.Builder
	text.WriteString(heading + "\n\n")
	for _, p := range paragraphs {
		text.WriteString(p + "\n\n")
	}
	view := htmlView{Subject: r.Subject, Heading: heading, Paragraphs: paragraphs, Footer: footer}
	if link := data["link"]; link != "" {
		view.Button, view.LinkHint, view.LinkText = fill(prefix+"button"), fill("mail.linkHint"), link
		view.Link = link // html/template lets only safe schemes (http, https, mailto) through
		text.WriteString(view.Button + ":\n" + link + "\n\n")
	}
	text.WriteString("-- \n" + footer + "\n")
	r.Text = text.String()
	var b bytes.Buffer
	if err := htmlTemplate.Execute(&b, view); err != nil {
		return rendered{}, engine.Wrap(engine.CodeInternal, err, "")
	}
	r.HTML = b.String()
	return r, nil
}
