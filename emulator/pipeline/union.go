package pipeline

import (
	"fmt"
)

// Union merges two or more streams into one. Every input is a chain of
// operators applied to the pipeline's input (an empty chain is the input
// itself): in an Eventstream every operator reads, through the nodes before
// it, the one DefaultStream, so the inputs of a Union are branches of that
// stream. Each event runs through every input in order, and the rows that
// come out of input 0 come first, then those of input 1, and so on; rows a
// wall-clock Advance closes come out input by input. Fabric's Union node
// (properties {}, two or more inputNodes) maps onto it, one input per
// inputNode, in their order.
type Union struct {
	Name   string
	Inputs [][]Operator
}

// Spec returns the canonical JSON shape.
func (u Union) Spec() Spec {
	return Spec{Type: "Union", Name: u.Name, Inputs: inputSpecs(u.Inputs)}
}

func inputSpecs(inputs [][]Operator) [][]Spec {
	out := make([][]Spec, len(inputs))
	for i, in := range inputs {
		out[i] = make([]Spec, len(in))
		for j, op := range in {
			out[i][j] = op.Spec()
		}
	}
	return out
}

func (u Union) validate(path string) error {
	if len(u.Inputs) < 2 {
		return invalid(join(path, "inputs"), "a Union needs two or more inputs, got %d", len(u.Inputs))
	}
	return validateInputs(u.Inputs, path)
}

// validateInputs checks the operators of every input, named
// path.inputs[i][j] in errors.
func validateInputs(inputs [][]Operator, path string) error {
	for i, in := range inputs {
		at := index(join(path, "inputs"), i)
		for j, op := range in {
			if op == nil {
				return invalid(index(at, j), "nil operator")
			}
			if err := op.validate(index(at, j)); err != nil {
				return err
			}
		}
	}
	return nil
}

// chain is a list of stages run in order.
type chain []stage

// push runs ev through c[i:] and emits what comes out.
func (c chain) push(i int, ev Event, emit func(Event)) {
	if i == len(c) {
		emit(ev)
		return
	}
	c[i].process(ev, func(e Event) { c.push(i+1, e, emit) })
}

// advance moves every stage's wall clock, running what closes through the
// stages after it.
func (c chain) advance(now int64, emit func(Event)) {
	for i, st := range c {
		st.advance(now, func(e Event) { c.push(i+1, e, emit) })
	}
}

// buildInputs builds the chains of inputs.
func buildInputs(inputs [][]Operator, path string, stats *Stats) ([]chain, error) {
	out := make([]chain, len(inputs))
	for i, in := range inputs {
		stages, err := buildStages(in, index(join(path, "inputs"), i), stats)
		if err != nil {
			return nil, err
		}
		out[i] = stages
	}
	return out, nil
}

// nested is a stage with input chains of its own: a Union or a Join.
type nested interface {
	stage
	inputs() []chain
	save(i int) nestedState
	restored(ns nestedState, inputs []chain) (stage, error)
	fresh(inputs []chain) stage
}

// nestedState is the state of a Union or Join at index Stage: its inputs'
// chains and, for a Join, the rows it holds.
type nestedState struct {
	Stage  int          `json:"stage"`
	Inputs []chainState `json:"inputs"`
	Join   *joinState   `json:"join,omitempty"`
}

// saveInputs encodes the states of the input chains.
func saveInputs(inputs []chain) []chainState {
	out := make([]chainState, len(inputs))
	for i, in := range inputs {
		out[i] = saveChain(in)
	}
	return out
}

// restoreNested rebuilds the Union and Join stages of stages from states
// (afresh, inputs included, where there is none), by index.
func restoreNested(stages []stage, states []nestedState, stats *Stats) (map[int]stage, error) {
	byStage := map[int]nestedState{}
	for _, ns := range states {
		if ns.Stage < 0 || ns.Stage >= len(stages) {
			return nil, fmt.Errorf("%w: stage %d out of range", ErrSnapshotMismatch, ns.Stage)
		}
		if _, ok := stages[ns.Stage].(nested); !ok {
			return nil, fmt.Errorf("%w: stage %d is not a Union or Join", ErrSnapshotMismatch, ns.Stage)
		}
		if _, dup := byStage[ns.Stage]; dup {
			return nil, fmt.Errorf("%w: stage %d twice", ErrSnapshotMismatch, ns.Stage)
		}
		byStage[ns.Stage] = ns
	}
	out := map[int]stage{}
	for i, st := range stages {
		n, ok := st.(nested)
		if !ok {
			continue
		}
		ns, has := byStage[i]
		ins := n.inputs()
		if has && len(ns.Inputs) != len(ins) {
			return nil, fmt.Errorf("%w: stage %d: %d inputs, want %d", ErrSnapshotMismatch, i, len(ns.Inputs), len(ins))
		}
		rebuilt := make([]chain, len(ins))
		for j, in := range ins {
			var cs chainState
			if has {
				cs = ns.Inputs[j]
			}
			c, err := restoreChain(in, cs, stats)
			if err != nil {
				return nil, err
			}
			rebuilt[j] = c
		}
		if !has {
			out[i] = n.fresh(rebuilt)
			continue
		}
		r, err := n.restored(ns, rebuilt)
		if err != nil {
			return nil, fmt.Errorf("%w: stage %d: %v", ErrSnapshotMismatch, i, err)
		}
		out[i] = r
	}
	return out, nil
}

// unionStage is a Union.
type unionStage struct {
	ins []chain
}

func newUnionStage(u Union, path string, stats *Stats) (*unionStage, error) {
	ins, err := buildInputs(u.Inputs, path, stats)
	if err != nil {
		return nil, err
	}
	return &unionStage{ins: ins}, nil
}

func (s *unionStage) process(ev Event, emit func(Event)) {
	for _, in := range s.ins {
		in.push(0, ev, emit)
	}
}

func (s *unionStage) advance(now int64, emit func(Event)) {
	for _, in := range s.ins {
		in.advance(now, emit)
	}
}

func (s *unionStage) inputs() []chain { return s.ins }

func (s *unionStage) save(i int) nestedState {
	return nestedState{Stage: i, Inputs: saveInputs(s.ins)}
}

func (s *unionStage) restored(_ nestedState, inputs []chain) (stage, error) {
	return &unionStage{ins: inputs}, nil
}

func (s *unionStage) fresh(inputs []chain) stage { return &unionStage{ins: inputs} }
