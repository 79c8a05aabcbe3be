package eventhubs

import (
	"fmt"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp"
)

// checkInactive closes the connection when it holds no link and has sent
// nothing but heartbeats since active for longer than Options.Inactivity,
// with amqp:connection:forced, as Event Hubs closes inactive connections.
func (c *conn) checkInactive(active time.Time) error {
	idle := c.opts.Now().Sub(active).Milliseconds()
	if idle < c.opts.Inactivity.Milliseconds() {
		return nil
	}
	c.mu.Lock()
	links := c.links
	c.mu.Unlock()
	if links > 0 {
		return nil
	}
	desc := fmt.Sprintf("The connection was inactive for more than the allowed %d milliseconds and is closed by the emulator.", c.opts.Inactivity.Milliseconds())
	c.log.Info("eventhubs: inactive connection closed", "inactivity", c.opts.Inactivity)
	c.closeWith(&amqp.Error{Condition: amqp.CondConnectionForced, Description: desc})
	return fmt.Errorf("inactive for %d ms", idle)
}
