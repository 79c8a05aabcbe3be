package portal

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
)

// flashCookie carries what a form's POST did to the page it returns to:
// a notice, or the API's refusal. It is written by the portal only (never
// taken from the URL), lives for one minute and is read once.
const flashCookie = "fabric-portal-flash"

// maxFlashMessage keeps the cookie under browsers' 4 KB limit.
const maxFlashMessage = 2000

// flash is the outcome of the last POST, shown once by the next page.
type flash struct {
	Notice string `json:"n,omitempty"` // what was done
	Status int    `json:"s,omitempty"` // the API's status when it refused
	Code   string `json:"c,omitempty"` // its errorCode
	Text   string `json:"m,omitempty"` // its message
}

// setFlash makes the next page show f.
func setFlash(w http.ResponseWriter, f flash) {
	if len(f.Text) > maxFlashMessage {
		f.Text = f.Text[:maxFlashMessage] + "…"
	}
	b, _ := json.Marshal(f)
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: base64.RawURLEncoding.EncodeToString(b), Path: Prefix,
		MaxAge: 60, HttpOnly: true, SameSite: http.SameSiteStrictMode})
}

// takeFlash reads the flash the last POST left and clears it.
func takeFlash(w http.ResponseWriter, r *http.Request) *flash {
	c, err := r.Cookie(flashCookie)
	if err != nil {
		return nil
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Path: Prefix, MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	b, err := base64.RawURLEncoding.DecodeString(c.Value)
	var f flash
	if err != nil || json.Unmarshal(b, &f) != nil || (f.Notice == "" && f.Code == "") {
		return nil
	}
	return &f
}
