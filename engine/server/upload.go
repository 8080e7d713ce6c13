package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine"
	"glimpse/engine/analysis"
	"glimpse/engine/instagram/export"
	"glimpse/engine/profile"
	"glimpse/engine/ui"
	"glimpse/screens"
)

// maxActionBody bounds a JSON action body. Uploads are streamed instead
// (the server streams any body over this size rather than buffering it).
const maxActionBody = 1 << 20

// requestBody is the request body as a stream, whether fasthttp buffered it
// (small bodies) or streams it (large ones).
func requestBody(c fiber.Ctx) io.Reader {
	if s := c.Request().BodyStream(); s != nil {
		return s
	}
	return bytes.NewReader(c.Body())
}

// readActionBody reads a JSON action body up to maxActionBody.
func readActionBody(c fiber.Ctx) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(requestBody(c), maxActionBody+1))
	if err != nil {
		return nil, engine.Wrap(engine.CodeInvalid, err, "The request could not be read.")
	}
	if len(b) > maxActionBody {
		return nil, engine.Errorf(engine.CodeInvalid, "The request is too large.")
	}
	return b, nil
}

// uploadExport takes an Instagram data export ZIP as the request body: it is
// spooled to a temporary file (a ZIP needs random access) under the size
// cap, imported, stored as a snapshot and analysed. A bad file stores
// nothing and says why.
func (s *Server) uploadExport(r *request, body io.Reader) (*ui.Result, error) {
	if !r.authorised {
		return ui.Effects(ui.Replace(screens.PathSignIn)), nil
	}
	ctx := r.fiber.Context()
	tmp, err := os.CreateTemp("", "glimpse-export-*.zip")
	if err != nil {
		return nil, fmt.Errorf("spool upload: %w", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	n, err := io.Copy(tmp, io.LimitReader(body, export.DefaultMaxZipBytes+1))
	if err != nil {
		return nil, engine.Wrap(engine.CodeInvalid, err, r.ctx.T("upload.failed"))
	}
	if n > export.DefaultMaxZipBytes {
		return uploadError(r, r.ctx.T("upload.tooLarge"))
	}
	if n == 0 {
		return uploadError(r, r.ctx.T("upload.required"))
	}
	exp, err := export.Import(ctx, tmp, n, export.Limits{})
	if err != nil {
		var e *engine.Error
		if errors.As(err, &e) && e.Code == engine.CodeInvalid {
			return uploadError(r, e.Message)
		}
		return nil, err
	}
	if exp.Range != nil || len(exp.MissingFiles) > 0 || exp.Followers == nil {
		// A partial export would report everyone outside it as lost.
		return uploadError(r, partialExportMessage(r, exp))
	}
	user := r.principal.User.ID
	p, err := s.Profiles.Get(ctx, user)
	if err != nil {
		return nil, err
	}
	if p.Source != profile.SourceExport {
		if err := s.Profiles.Connect(ctx, user, profile.SourceExport, exp.Owner, 0); err != nil {
			return nil, err
		}
	}
	followers := exp.Usernames(exp.Followers)
	snap := analysis.Snapshot{TakenAt: s.Clock.Now(), FollowerCount: len(followers), Followers: followers,
		Following: exp.Usernames(exp.Following)}
	if _, err := s.Profiles.AddSnapshot(ctx, user, snap); err != nil {
		return nil, err
	}
	if _, err := s.Profiles.Analyse(ctx, user); err != nil {
		return nil, err
	}
	page, err := s.analyticsScreen(r)
	if err != nil {
		return nil, err
	}
	return s.screenResult(r, page)
}

func partialExportMessage(r *request, exp export.Export) string {
	msg := r.ctx.T("upload.partial")
	if exp.Range != nil {
		msg = strings.NewReplacer("{from}", exp.Range.From.Format("Jan 2, 2006"), "{to}",
			exp.Range.To.Format("Jan 2, 2006")).Replace(r.ctx.T("upload.dateRange"))
	}
	return msg
}

// uploadError shows a message under the upload input.
func uploadError(r *request, msg string) (*ui.Result, error) {
	return nil, &engine.Error{Code: engine.CodeInvalid, Fields: map[string]string{screens.ExportInput: msg}}
}
