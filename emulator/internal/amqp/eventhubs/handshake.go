package eventhubs

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp"
)

// SASL mechanisms the door offers, as Event Hubs does.
const (
	mechMSSBCBS   amqp.Symbol = "MSSBCBS"
	mechPlain     amqp.Symbol = "PLAIN"
	mechAnonymous amqp.Symbol = "ANONYMOUS"
)

// minHeartbeat bounds how often the door sends heartbeats, whatever idle
// timeout a client announces.
const minHeartbeat = 50 * time.Millisecond

// handshake exchanges the protocol headers, SASL when asked for, and open.
func (c *conn) handshake() error {
	h, err := amqp.ReadProtocolHeader(c.br)
	if err != nil {
		return err
	}
	if h.Supported() && h.ID == amqp.ProtoSASL {
		if err := c.sasl(); err != nil {
			return fmt.Errorf("sasl: %w", err)
		}
		if h, err = amqp.ReadProtocolHeader(c.br); err != nil {
			return err
		}
	}
	if !h.Supported() || h.ID != amqp.ProtoAMQP {
		c.nc.Write(amqp.NewProtocolHeader(amqp.ProtoAMQP).Bytes())
		return fmt.Errorf("unsupported protocol header %s", h)
	}
	if err := amqp.WriteProtocolHeader(c.nc, amqp.ProtoAMQP); err != nil {
		return err
	}
	return c.open()
}

// readPreAuth reads one frame of at most PreAuthFrameSize bytes.
func (c *conn) readPreAuth(typ uint8) (amqp.Performative, error) {
	f, err := amqp.ReadFrame(c.br, c.opts.PreAuthFrameSize)
	if err != nil {
		return nil, err
	}
	if f.Type != typ {
		return nil, fmt.Errorf("frame of type %d where %d was expected", f.Type, typ)
	}
	p, _, err := amqp.DecodeFrame(f)
	if err == nil && p == nil {
		err = errors.New("heartbeat before open")
	}
	return p, err
}

// sasl runs the SASL layer: mechanisms, init, outcome.
func (c *conn) sasl() error {
	if err := amqp.WriteProtocolHeader(c.nc, amqp.ProtoSASL); err != nil {
		return err
	}
	mechs := &amqp.SASLMechanisms{Mechanisms: []amqp.Symbol{mechMSSBCBS, mechPlain, mechAnonymous}}
	if err := c.write(0, mechs, nil); err != nil {
		return err
	}
	p, err := c.readPreAuth(amqp.FrameSASL)
	if err != nil {
		return err
	}
	init, ok := p.(*amqp.SASLInit)
	if !ok {
		return fmt.Errorf("got %s where sasl-init was expected", amqp.PerformativeName(p))
	}
	if err := c.saslAuth(init); err != nil {
		c.write(0, &amqp.SASLOutcome{Code: amqp.SASLAuth}, nil)
		return err
	}
	return c.write(0, &amqp.SASLOutcome{Code: amqp.SASLOK}, nil)
}

// saslAuth checks a sasl-init. ANONYMOUS and MSSBCBS defer authorization
// to CBS tokens; PLAIN asks the host about a key name and key.
func (c *conn) saslAuth(init *amqp.SASLInit) error {
	switch init.Mechanism {
	case mechAnonymous, mechMSSBCBS:
		return nil
	case mechPlain:
		parts := bytes.Split(init.InitialResponse, []byte{0})
		if len(parts) != 3 {
			return errors.New("PLAIN response is not authzid NUL user NUL password")
		}
		g, err := c.host.Authorize(c.ctx, Credential{Type: TokenSASLPlain, KeyName: string(parts[1]), Token: string(parts[2])})
		if err != nil {
			return fmt.Errorf("PLAIN refused: %w", err)
		}
		c.grants[""] = g
		return nil
	}
	return fmt.Errorf("mechanism %q is not offered", init.Mechanism)
}

// open reads the client's open and answers with the door's limits.
func (c *conn) open() error {
	p, err := c.readPreAuth(amqp.FrameAMQP)
	if err != nil {
		return err
	}
	o, ok := p.(*amqp.Open)
	if !ok {
		return fmt.Errorf("got %s where open was expected", amqp.PerformativeName(p))
	}
	c.maxOut = o.MaxFrameSize
	if c.maxOut == 0 || c.maxOut > c.opts.MaxFrameSize {
		c.maxOut = c.opts.MaxFrameSize
	}
	if c.maxOut < amqp.MinMaxFrameSize {
		c.maxOut = amqp.MinMaxFrameSize
	}
	if o.IdleTimeout > 0 {
		c.beat = max(time.Duration(o.IdleTimeout)*time.Millisecond/2, minHeartbeat)
	}
	return c.write(0, &amqp.Open{
		ContainerID: c.opts.ContainerID, Hostname: o.Hostname, MaxFrameSize: c.opts.MaxFrameSize,
		ChannelMax: uint16(c.opts.MaxSessions - 1), IdleTimeout: uint32(c.opts.IdleTimeout / time.Millisecond),
	}, nil)
}
