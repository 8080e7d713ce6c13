package server

import (
	"errors"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine"
	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/report"
	"glimpse/screens"
)

// serveReceiptPDF answers a subscriber's receipt as a PDF (the document a
// business files); anyone else's number, or an unknown one, is not found.
func (s *Server) serveReceiptPDF(c fiber.Ctx) error {
	return s.serveFile(c, screens.PathBilling, s.receiptPDF)
}

func (s *Server) receiptPDF(c fiber.Ctx, r *request) error {
	if !r.signedIn {
		return engine.Errorf(engine.CodeUnauthenticated, "%s", r.copy.T("receipt.signIn"))
	}
	number, ok := strings.CutSuffix(c.Params("file"), ".pdf")
	if !ok {
		return engine.Errorf(engine.CodeNotFound, "%s", r.copy.T("receipt.notFound"))
	}
	v, err := s.Billing.ReceiptForUser(c.Context(), r.principal.User.ID, number)
	if errors.Is(err, billing.ErrNoReceipt) {
		return engine.Errorf(engine.CodeNotFound, "%s", r.copy.T("receipt.notFound"))
	}
	if err != nil {
		return err
	}
	t := r.copy.T
	lines := [][2]string{
		{t("receipt.item"), itemName(r.copy, v.PlanCode, v.Family())},
		{t("receipt.kind"), t("receipt.kind." + v.Kind)},
		{t("receipt.amount"), v.Amount.String()},
		{t("receipt.date"), brand.Date(v.PaidAt)},
	}
	if p := v.Period(); p != "" {
		lines = append(lines, [2]string{t("receipt.period"), p})
	}
	if card := v.Card(); card != "" {
		lines = append(lines, [2]string{t("receipt.card"), card})
	}
	lines = append(lines, [2]string{t("receipt.status"), t("billing.status." + v.Status)}, [2]string{t("receipt.billedTo"), v.Email})
	if back := refundedText(r, v); back != "" {
		lines = append(lines, [2]string{t("receipt.refunded"), back})
	}
	seller := t("receipt.seller") + ": " + strings.NewReplacer("{operator}", s.Config.OperatorName, "{brand}", r.brand.Name).Replace(t("receipt.sellerText"))
	if s.Config.OperatorAddress != "" {
		seller += ", " + s.Config.OperatorAddress
	}
	pdf, err := report.RenderReceipt(report.Receipt{Brand: r.brand.Name, Number: v.Number, IssuedAt: v.PaidAt,
		Title: t("receipt.pdfTitle"), Lines: lines, Seller: seller,
		Contact: strings.ReplaceAll(t("receipt.support"), "{support}", r.brand.SupportEmail),
		Footer:  r.brand.Name + " · " + t("receipt.pdfTitle") + " " + v.Number})
	if err != nil {
		return engine.Wrap(engine.CodeInternal, err, "")
	}
	c.Set("Content-Type", "application/pdf")
	c.Set("Content-Disposition", `attachment; filename="receipt-`+v.Number+`.pdf"`)
	c.Set("Cache-Control", "private, no-store")
	c.Set("Content-Length", strconv.Itoa(len(pdf)))
	return c.Send(pdf)
}
