package entra

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/uuid"
)

// stsError is a refusal in Entra's terms: an OAuth2 error code, an AADSTS
// number and its message, answered with the HTTP status Entra uses.
type stsError struct {
	status int
	code   string
	aadsts int
	msg    string
}

func (e stsError) Error() string { return fmt.Sprintf("AADSTS%d: %s", e.aadsts, e.msg) }

func errTenantNotFound(code, tenant string) stsError {
	return stsError{http.StatusBadRequest, code, 90002, fmt.Sprintf("Tenant '%s' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud. (fabric-emulator knows only its tenant, set by --entra-tenant.)", tenant)}
}

func errTenantInvalid(tenant string) stsError {
	return stsError{http.StatusBadRequest, "invalid_request", 900023, fmt.Sprintf("Specified tenant identifier '%s' is neither a valid DNS name, nor a valid external domain.", tenant)}
}

func errNoTenant() stsError {
	return stsError{http.StatusBadRequest, "invalid_request", 50059, "No tenant-identifying information found in either the request or implied by any provided credentials. (The client_credentials grant needs a tenant id or domain in the authority, not common, organizations or consumers.)"}
}

func errMissing(param string) stsError {
	return stsError{http.StatusBadRequest, "invalid_request", 900144, fmt.Sprintf("The request body must contain the following parameter: '%s'.", param)}
}

func errGrantType(grant string) stsError {
	return stsError{http.StatusBadRequest, "unsupported_grant_type", 70003, fmt.Sprintf("The app requested an unsupported grant type '%s'. (fabric-emulator issues tokens for the client_credentials grant only.)", grant)}
}

func errUnknownApp(clientID, tenant string) stsError {
	return stsError{http.StatusBadRequest, "unauthorized_client", 700016, fmt.Sprintf("Application with identifier '%s' was not found in the directory '%s'. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant. You may have sent your authentication request to the wrong tenant.", clientID, tenant)}
}

func errNoSecret() stsError {
	return stsError{http.StatusUnauthorized, "invalid_client", 7000216, "'client_assertion', 'client_secret' or 'request' is required for the 'client_credentials' grant type. (fabric-emulator checks client secrets, in the body or HTTP Basic.)"}
}

func errWrongSecret(clientID string) stsError {
	return stsError{http.StatusUnauthorized, "invalid_client", 7000215, fmt.Sprintf("Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '%s'.", clientID)}
}

func errScopeNotDefault(scope string) stsError {
	return stsError{http.StatusBadRequest, "invalid_scope", 1002012, fmt.Sprintf("The provided value for scope %s is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).", scope)}
}

func errScopeUnknown(scope string) stsError {
	return stsError{http.StatusBadRequest, "invalid_scope", 70011, fmt.Sprintf("The provided value for the input parameter 'scope' is not valid. The scope %s is not valid. (fabric-emulator issues tokens for %s.)", scope, strings.Join(knownResourcesText, ", "))}
}

func errScopeResources(scope string) stsError {
	return stsError{http.StatusBadRequest, "invalid_scope", 28000, fmt.Sprintf("Provided value for the input parameter scope is not valid because it contains more than one resource. Scope %s is not valid.", scope)}
}

// stsBody is Entra's error answer
// (v2-oauth2-client-creds-grant-flow, "Error response").
type stsBody struct {
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
	ErrorCodes       []int  `json:"error_codes"`
	Timestamp        string `json:"timestamp"`
	TraceID          string `json:"trace_id"`
	CorrelationID    string `json:"correlation_id"`
}

// refuse answers e as Entra does and logs one line.
func (s *Service) refuse(w http.ResponseWriter, r *http.Request, e stsError) {
	now := s.cfg.Now().UTC().Format("2006-01-02 15:04:05Z")
	trace := uuid.NewString()
	corr := cmp.Or(r.Header.Get("client-request-id"), uuid.NewString())
	body := stsBody{
		Error:            e.code,
		ErrorDescription: fmt.Sprintf("%s\r\nTrace ID: %s\r\nCorrelation ID: %s\r\nTimestamp: %s", e.Error(), trace, corr, now),
		ErrorCodes:       []int{e.aadsts},
		Timestamp:        now,
		TraceID:          trace,
		CorrelationID:    corr,
	}
	s.cfg.Logger.Warn("entra request refused", "path", r.URL.Path, "error", e.code, "code", fmt.Sprintf("AADSTS%d", e.aadsts),
		"clientId", r.PostForm.Get("client_id"), "message", e.msg)
	writeJSON(w, e.status, body)
}

// writeJSON answers v with status, uncached as Entra's answers are.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store, no-cache")
	w.Header().Set("Pragma", "no-cache")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
