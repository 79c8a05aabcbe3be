//go:build container

package specs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/fabrictest"
)

var _ = Describe("Eventstream to Reflex to jobs on Apache Kafka", Label("kafka", "container", "reflex", "jobs"), func() {
	It("starts exactly one job per event, each with its own event, and records a handler's failure with its reason", func(ctx SpecContext) {
		env := fabrictest.Start(GinkgoTB()).WithContext(ctx)
		ws := env.Workspace("ops")
		es := ws.Eventstream("orders")
		nb := ws.Item("Notebook", "on-order")
		rx := ws.Reflex("order-alerts")

		By("registering the notebook's job handler: it refuses every order whose id is a multiple of 5")
		var (
			mu   sync.Mutex
			seen = map[string]string{} // job id → the event value the handler got
		)
		nb.HandleJobs("RunNotebook", func(_ context.Context, j emulator.Job) error {
			var ev struct{ Value string }
			if err := json.Unmarshal(j.TriggerEvent, &ev); err != nil {
				return fmt.Errorf("trigger event: %w", err)
			}
			var o struct{ ID int }
			if err := json.Unmarshal([]byte(ev.Value), &o); err != nil {
				return fmt.Errorf("event value %q: %w", ev.Value, err)
			}
			mu.Lock()
			seen[j.ID] = ev.Value
			mu.Unlock()
			if o.ID%5 == 0 {
				return fmt.Errorf("order %d refused by the notebook", o.ID)
			}
			return nil
		})

		By("adding a trigger on every order event and binding the Reflex to the Eventstream")
		trig := rx.Trigger("every order", es, nb, "RunNotebook")
		Expect(trig.Enabled).To(BeTrue())
		es.BindReflex(rx)

		By("producing N keyed events through the Custom HTTP source")
		const n = 12
		events := make([]any, n)
		for i := range n {
			events[i] = fabrictest.Event{Key: fmt.Sprintf("o-%02d", i+1), Value: map[string]any{"id": i + 1}}
		}
		es.Produce(events...)

		By("finding exactly N job instances through the Job Scheduler API, all finished")
		Expect(nb.JobInstances()).To(fabrictest.HaveJobInstances(n), "the produce answers once every job is started")
		Eventually(func() (fabrictest.JobInstances, error) {
			js, err := nb.TryJobInstances()
			return append(js.WithStatus(fabrictest.JobNotStarted), js.WithStatus(fabrictest.JobInProgress)...), err
		}).WithContext(ctx).WithTimeout(20 * time.Second).WithPolling(50 * time.Millisecond).Should(fabrictest.HaveJobInstances(0))
		jobs := nb.JobInstances()
		Expect(jobs).To(fabrictest.HaveJobInstances(n))

		By("checking each instance carries its own event, and the failures their reason")
		keys := map[string]bool{}
		for _, j := range jobs {
			Expect(j.InvokeType).To(Equal("EventTriggered"))
			Expect(j.JobType).To(Equal("RunNotebook"))
			Expect(j.TriggerEvent).NotTo(BeNil())
			Expect(j.TriggerEvent.EventType).To(Equal(fabrictest.EventReceived))
			Expect(j.TriggerEvent.Source.ItemID).To(Equal(es.ID))
			Expect(keys).NotTo(HaveKey(j.TriggerEvent.Key), "two jobs for event %s", j.TriggerEvent.Key)
			keys[j.TriggerEvent.Key] = true
			var o struct{ ID int }
			Expect(j.TriggerEvent.DecodeValue(&o)).To(Succeed())
			Expect(j.TriggerEvent.Key).To(Equal(fmt.Sprintf("o-%02d", o.ID)), "key and value of one event")
			mu.Lock()
			Expect(seen).To(HaveKeyWithValue(j.ID, j.TriggerEvent.Value), "the handler ran this instance with this event")
			mu.Unlock()
			if o.ID%5 == 0 {
				Expect(j).To(fabrictest.HaveJobStatus(fabrictest.JobFailed, "JobFailed", fmt.Sprintf("order %d refused by the notebook", o.ID)))
			} else {
				Expect(j).To(fabrictest.HaveJobStatus(fabrictest.JobCompleted))
				Expect(j.FailureReason).To(BeNil())
			}
			Expect(j.EndTimeUtc).To(BeTemporally(">=", j.StartTimeUtc))
		}
		Expect(keys).To(HaveLen(n))
		Expect(jobs.Statuses()).To(Equal(map[string]int{fabrictest.JobCompleted: n - n/5, fabrictest.JobFailed: n / 5}))

		By("each instance also reads back one by one")
		failed := jobs.WithStatus(fabrictest.JobFailed)[0]
		Expect(nb.JobInstance(failed.ID)).To(fabrictest.HaveJobStatus(fabrictest.JobFailed, "refused by the notebook"))
	}, SpecTimeout(90*time.Second))
})
