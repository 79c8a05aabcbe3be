package fabrictest_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/fabrictest"
)

func TestReflexStartsOneJobPerEvent(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env := fabrictest.Start(t)
	ws := env.Workspace("ops")
	es := ws.Eventstream("orders")
	nb := ws.Item("Notebook", "on-order")
	rx := ws.Reflex("alerts")

	var mu sync.Mutex
	ran := map[string]string{} // job id → event value the handler saw
	nb.HandleJobs("RunNotebook", func(_ context.Context, j emulator.Job) error {
		var ev struct{ Value string }
		_ = json.Unmarshal(j.TriggerEvent, &ev)
		mu.Lock()
		ran[j.ID] = ev.Value
		mu.Unlock()
		if ev.Value == `{"n":2}` {
			return errors.New("order 2 rejected")
		}
		return nil
	})
	trig := rx.Trigger("every order", es, nb, "RunNotebook")
	g.Expect(trig.Enabled).To(BeTrue())
	g.Expect(trig.Action.ItemID).To(Equal(nb.ID))
	g.Expect(trig.Action.WorkspaceID).To(Equal(ws.ID))
	g.Expect(rx.Triggers()).To(HaveLen(1))
	rx.Trigger("big orders only", es, nb, "RunNotebook", fabrictest.When(`{"field": "n", "op": "gte", "value": 3}`), fabrictest.Disabled())

	es.BindReflex(rx)
	es.ProduceJSON(map[string]any{"n": 1}, map[string]any{"n": 2}, map[string]any{"n": 3})

	// The produce answers once the jobs exist; they finish on their own time.
	g.Expect(nb.JobInstances()).To(fabrictest.HaveJobInstances(3))
	g.Eventually(func() (fabrictest.JobInstances, error) {
		js, err := nb.TryJobInstances()
		return append(js.WithStatus(fabrictest.JobInProgress), js.WithStatus(fabrictest.JobNotStarted)...), err
	}).WithTimeout(5 * time.Second).Should(fabrictest.HaveJobInstances(0))
	jobs := nb.JobInstances()
	g.Expect(jobs.Statuses()).To(Equal(map[string]int{fabrictest.JobCompleted: 2, fabrictest.JobFailed: 1}))
	values := map[string]bool{}
	for _, j := range jobs {
		g.Expect(j.InvokeType).To(Equal("EventTriggered"))
		g.Expect(j.TriggerEvent).NotTo(BeNil())
		g.Expect(j.TriggerEvent.Source.ItemID).To(Equal(es.ID))
		g.Expect(j.StartTimeUtc).NotTo(BeZero())
		g.Expect(j.EndTimeUtc).To(BeTemporally(">=", j.StartTimeUtc))
		values[j.TriggerEvent.Value] = true
		mu.Lock()
		g.Expect(ran).To(HaveKeyWithValue(j.ID, j.TriggerEvent.Value), "the handler got the instance's own event")
		mu.Unlock()
		if j.TriggerEvent.Value == `{"n":2}` {
			g.Expect(j).To(fabrictest.HaveJobStatus(fabrictest.JobFailed, "JobFailed", "order 2 rejected"))
		} else {
			g.Expect(j).To(fabrictest.HaveJobStatus(fabrictest.JobCompleted))
		}
	}
	g.Expect(values).To(HaveLen(3))

	// Disabled, the trigger fires nothing.
	trig.SetEnabled(false)
	es.ProduceJSON(map[string]any{"n": 9})
	g.Expect(nb.JobInstances()).To(fabrictest.HaveJobInstances(3))
}

func TestManualJobs(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env := fabrictest.Start(t)
	ws := env.Workspace("ops")
	nb := ws.Item("Notebook", "nightly")

	// Nobody runs it: Failed with NoJobRunner.
	j := nb.RunJob("RunNotebook")
	g.Expect(j.InvokeType).To(Equal("Manual"))
	g.Eventually(nb.JobInstanceFunc(j.ID)).WithTimeout(5 * time.Second).Should(fabrictest.HaveJobStatus(fabrictest.JobFailed, "NoJobRunner"))

	release := make(chan struct{})
	env.HandleJobs(nb.ID, "", func(ctx context.Context, j emulator.Job) error {
		if j.JobType == "Slow" {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-release:
			}
		}
		return nil
	})
	defer close(release)
	ok := nb.RunJob("RunNotebook")
	g.Eventually(nb.JobInstanceFunc(ok.ID)).WithTimeout(5 * time.Second).Should(fabrictest.HaveJobStatus(fabrictest.JobCompleted))

	slow := nb.RunJob("Slow")
	nb.CancelJob(slow.ID)
	g.Eventually(nb.JobInstanceFunc(slow.ID)).WithTimeout(5 * time.Second).Should(fabrictest.HaveJobStatus(fabrictest.JobCancelled))
	g.Expect(nb.TryCancelJob(slow.ID)).To(fabrictest.HaveErrorCode("JobAlreadyCompleted"))

	_, err := nb.TryRunJob("bad type!")
	g.Expect(err).To(fabrictest.HaveErrorCode("InvalidJobType"))
	_, err = nb.TryJobInstance(ws.ID)
	g.Expect(err).To(fabrictest.HaveErrorCode("JobInstanceNotFound"))
	g.Expect(nb.JobInstances()).To(fabrictest.HaveJobInstances(3))
}

// More than one page of job instances (the emulator pages by 100).
func TestJobInstancesPages(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env := fabrictest.Start(t, fabrictest.WithEmulatorOptions(emulator.WithPageSize(2)))
	ws := env.Workspace("ops")
	nb := ws.Item("Notebook", "nb")
	for range 5 {
		nb.RunJob("RunNotebook")
	}
	g.Expect(nb.JobInstances()).To(fabrictest.HaveJobInstances(5))
}

func sampleJobs() fabrictest.JobInstances {
	j := func(id, status, value string) fabrictest.JobInstance {
		ji := fabrictest.JobInstance{ID: id, ItemID: "nb", JobType: "RunNotebook", InvokeType: "EventTriggered", Status: status,
			TriggerEvent: &fabrictest.TriggerEvent{Value: value}}
		ji.TriggerEvent.Source.Partition, ji.TriggerEvent.Source.Offset = 0, int64(len(id))
		return ji
	}
	failed := j("job-2", fabrictest.JobFailed, `{"n":2}`)
	failed.FailureReason = &fabrictest.JobFailure{ErrorCode: "JobFailed", Message: "order 2 rejected"}
	return fabrictest.JobInstances{j("job-1", fabrictest.JobCompleted, `{"n":1}`), failed}
}

func TestHaveJobInstances(t *testing.T) {
	g := NewWithT(t)
	js := sampleJobs()
	g.Expect(js).To(fabrictest.HaveJobInstances(2))
	g.Expect([]fabrictest.JobInstance(js)).NotTo(fabrictest.HaveJobInstances(3))

	ok, msg := failure(js, fabrictest.HaveJobInstances(3))
	t.Logf("HaveJobInstances(3) failure message:\n%s", msg)
	g.Expect(ok).To(BeFalse())
	g.Expect(msg).To(Equal(`Expected 3 job instance(s), found 2:
    2 job instance(s):
      job-1 RunNotebook EventTriggered Completed event p0@5 value={"n":1}
      job-2 RunNotebook EventTriggered Failed (JobFailed: order 2 rejected) event p0@5 value={"n":2}`))

	_, err := fabrictest.HaveJobInstances(1).Match(js[0])
	g.Expect(err).To(MatchError(ContainSubstring("Matcher expected actual of type <[]fabrictest.JobInstance>")))
}

func TestHaveJobStatus(t *testing.T) {
	g := NewWithT(t)
	js := sampleJobs()
	g.Expect(js[0]).To(fabrictest.HaveJobStatus(fabrictest.JobCompleted))
	g.Expect(js[1]).To(fabrictest.HaveJobStatus(fabrictest.JobFailed, "order 2"))
	g.Expect(js[1]).NotTo(fabrictest.HaveJobStatus(fabrictest.JobFailed, "disk full"))
	g.Expect(js).To(ContainElement(fabrictest.HaveJobStatus(fabrictest.JobFailed)))
	g.Expect(js).NotTo(HaveEach(fabrictest.HaveJobStatus(fabrictest.JobCompleted)))

	ok, msg := failure(js[1], fabrictest.HaveJobStatus(fabrictest.JobCompleted))
	t.Logf("HaveJobStatus failure message:\n%s", msg)
	g.Expect(ok).To(BeFalse())
	g.Expect(msg).To(Equal(`Expected job instance job-2 to be Completed, but it is Failed (JobFailed: order 2 rejected):
    job-2 RunNotebook EventTriggered Failed (JobFailed: order 2 rejected) event p0@5 value={"n":2}`))

	ok, msg = failure(js[0], fabrictest.HaveJobStatus(fabrictest.JobFailed, "disk full"))
	g.Expect(ok).To(BeFalse())
	g.Expect(msg).To(HavePrefix(`Expected job instance job-1 to be Failed with a failure reason containing "disk full", but it is Completed (no failure reason):`))
}
