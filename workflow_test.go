package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// workflowFile is the GitHub Actions workflow users copy into their
// repository (.github/workflows/): install lockstep, lockstep check, go test.
const workflowFile = "examples/ci/lockstep.yml"

// workflow is the part of a GitHub Actions workflow the example uses; a key
// outside it (a typo such as run-on) fails the decoding.
type workflow struct {
	Name        string
	On          map[string]any
	Permissions map[string]string
	Jobs        map[string]struct {
		RunsOn string `yaml:"runs-on"`
		Steps  []workflowStep
	}
}

type workflowStep struct {
	Name, Uses, Run, If string
	With                map[string]string
}

// readWorkflow parses the example workflow, strictly.
func readWorkflow(t *testing.T) workflow {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader([]byte(readString(t, workflowFile))))
	dec.KnownFields(true)
	var w workflow
	if err := dec.Decode(&w); err != nil {
		t.Fatalf("%s does not parse as a workflow: %v", workflowFile, err)
	}
	return w
}

// workflowRuns are the run: steps of the example workflow's one job, in
// order; the uses: steps around them are the runner's work (a checkout,
// Go on the PATH, an artefact kept).
func workflowRuns(t *testing.T) []string {
	t.Helper()
	w := readWorkflow(t)
	var runs []string
	for _, job := range w.Jobs {
		for _, s := range job.Steps {
			if s.Run != "" {
				runs = append(runs, s.Run)
			}
		}
	}
	return runs
}

// The example workflow still parses, says where it goes, and runs on push
// and pull requests a job of: checkout, setup-go (stable), go install of
// the module go.mod names, lockstep --version, lockstep check, go test
// ./..., in that order. TestInstallFromProxy (LOCKSTEP_INSTALL=1) runs its
// run: steps.
func TestExampleWorkflow(t *testing.T) {
	text := readString(t, workflowFile)
	if !strings.Contains(text, ".github/workflows/") {
		t.Errorf("%s: its comment does not say where it goes (.github/workflows/)", workflowFile)
	}
	w := readWorkflow(t)
	if _, ok := w.On["push"]; !ok || len(w.Jobs) != 1 {
		t.Fatalf("%s: want a job on push, got on %v, %d jobs", workflowFile, w.On, len(w.Jobs))
	}
	var uses, runs []string
	for _, job := range w.Jobs {
		for _, s := range job.Steps {
			if (s.Uses == "") == (s.Run == "") {
				t.Errorf("step %q: want one of uses and run", s.Name)
			}
			if name, ref, _ := strings.Cut(s.Uses, "@"); s.Uses != "" {
				uses = append(uses, name)
				if !strings.HasPrefix(ref, "v") {
					t.Errorf("step uses %q: want a released version (@vN)", s.Uses)
				}
			}
			if strings.HasPrefix(s.Uses, "actions/setup-go@") && s.With["go-version"] != "stable" {
				t.Errorf("setup-go with %v: want go-version: stable", s.With)
			}
			if s.Run != "" {
				runs = append(runs, strings.TrimSpace(s.Run))
			}
		}
	}
	if want := []string{"actions/checkout", "actions/setup-go", "actions/upload-artifact"}; !slices.Equal(uses, want) {
		t.Errorf("uses %q, want %q", uses, want)
	}
	path := modulePath(readString(t, "go.mod"))
	want := []string{`go install "` + path + `@`, "lockstep --version", "lockstep check", "go test ./..."}
	if len(runs) != len(want) {
		t.Fatalf("run steps %q, want %d: %q…", runs, len(want), want)
	}
	for i, run := range runs {
		if !strings.HasPrefix(run, want[i]) {
			t.Errorf("run step %d is %q, want it to start %q (go.mod's module path, installed first)", i+1, run, want[i])
		}
	}
	if !strings.Contains(runs[0], "go list -m -f '{{.Version}}' "+path+")") {
		t.Errorf("install step %q: want the version go.mod requires (go list -m … %s)", runs[0], path)
	}
}
