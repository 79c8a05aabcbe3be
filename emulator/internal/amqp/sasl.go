package amqp

// SASL outcome codes (part 5, section 5.3.3.6).
const (
	SASLOK      uint8 = 0 // authentication succeeded
	SASLAuth    uint8 = 1 // bad credentials
	SASLSys     uint8 = 2 // system error
	SASLSysPerm uint8 = 3 // unrecoverable system error
	SASLSysTemp uint8 = 4 // transient system error
)

// SASLMechanisms is the server's list of mechanisms (0x40).
type SASLMechanisms struct{ Mechanisms []Symbol }

// SASLInit is the client's chosen mechanism and initial response (0x41).
type SASLInit struct {
	Mechanism       Symbol
	InitialResponse []byte
	Hostname        string
}

// SASLChallenge is a server challenge (0x42).
type SASLChallenge struct{ Challenge []byte }

// SASLResponse is a client response (0x43).
type SASLResponse struct{ Response []byte }

// SASLOutcome ends the SASL exchange (0x44).
type SASLOutcome struct {
	Code           uint8
	AdditionalData []byte
}

func (*SASLMechanisms) descriptor() uint64 { return descSASLMechanisms }
func (*SASLInit) descriptor() uint64       { return descSASLInit }
func (*SASLChallenge) descriptor() uint64  { return descSASLChallenge }
func (*SASLResponse) descriptor() uint64   { return descSASLResponse }
func (*SASLOutcome) descriptor() uint64    { return descSASLOutcome }

func (p *SASLMechanisms) fields() []any {
	a := make(Array, len(p.Mechanisms))
	for i, m := range p.Mechanisms {
		a[i] = m
	}
	return []any{a}
}

func (p *SASLInit) fields() []any {
	return []any{p.Mechanism, binaryField(p.InitialResponse), nonZero(p.Hostname)}
}

func (p *SASLChallenge) fields() []any { return []any{nonNilBinary(p.Challenge)} }
func (p *SASLResponse) fields() []any  { return []any{nonNilBinary(p.Response)} }
func (p *SASLOutcome) fields() []any {
	return []any{p.Code, binaryField(p.AdditionalData)}
}

// nonNilBinary encodes a mandatory binary field: empty rather than null.
func nonNilBinary(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func decodeSASLMechanisms(r *fieldReader) Performative {
	m := r.symbols("sasl-server-mechanisms")
	if m == nil && r.err == nil {
		r.fail("sasl-server-mechanisms", "mandatory field is null")
	}
	return &SASLMechanisms{Mechanisms: m}
}

func decodeSASLInit(r *fieldReader) Performative {
	return &SASLInit{
		Mechanism:       mandatory[Symbol](r, "mechanism"),
		InitialResponse: orDefault[[]byte](r, "initial-response", nil),
		Hostname:        orDefault(r, "hostname", ""),
	}
}

func decodeSASLChallenge(r *fieldReader) Performative {
	return &SASLChallenge{Challenge: mandatory[[]byte](r, "challenge")}
}

func decodeSASLResponse(r *fieldReader) Performative {
	return &SASLResponse{Response: mandatory[[]byte](r, "response")}
}

func decodeSASLOutcome(r *fieldReader) Performative {
	return &SASLOutcome{
		Code:           mandatory[uint8](r, "code"),
		AdditionalData: orDefault[[]byte](r, "additional-data", nil),
	}
}
