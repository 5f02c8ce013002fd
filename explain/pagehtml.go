package explain

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"
)

// The page's style and script, inlined into every page: the page fetches nothing, so it
// works from file:// and offline, and its Content-Security-Policy forbids every fetch.
var (
	//go:embed page.css
	pageCSS string
	//go:embed page.js
	pageJS string
	//go:embed page.html
	pageHTML string
)

// pageData is what the page's script reads (the JSON inside the page).
type pageData struct {
	Title string   `json:"title"`
	Notes []string `json:"notes"`
	// Lanes are the goroutines, LaneOrder the order they are drawn in.
	Lanes     []string `json:"lanes"`
	LaneOrder []int    `json:"laneOrder"`
	Pods      []string `json:"pods"`
	Channels  []string `json:"channels"`
	// Senders lists each channel's senders in the run.
	Senders map[string][]string `json:"senders"`
	// ChanNotes say which drawn channels the model does not have.
	ChanNotes map[string]string `json:"chanNotes"`
	Cats      []string          `json:"cats"`
	Upstream  []UpstreamRef     `json:"upstream"`
	Init      [][2]string       `json:"init"`
	Steps     []PageStep        `json:"steps"`
	Events    int               `json:"events"`
	// Pod and Only preset the filters.
	Pod  string   `json:"pod"`
	Only []string `json:"only"`
}

// WriteHTML writes the page: one self-contained HTML file. Call it after Close.
func (p *Page) WriteHTML(w io.Writer) error {
	if !p.closed {
		return fmt.Errorf("writing the page: the page is not closed")
	}
	d := pageData{
		Title: p.o.Title, Notes: p.Notes, Lanes: p.Lanes, LaneOrder: p.laneOrder(), Pods: p.Pods, Channels: p.Channels,
		ChanNotes: map[string]string{chanContainerManager: "not modelled: nodesim simulates no devices, so this case is never ready"},
		Senders:   p.senders, Upstream: p.Upstream, Init: p.Init, Steps: p.Steps, Events: p.Events, Pod: p.o.Pod,
	}
	// Empty lists are written as [] rather than null: the script reads their length.
	d.Notes, d.Lanes, d.Pods, d.Channels = orEmpty(d.Notes), orEmpty(d.Lanes), orEmpty(d.Pods), orEmpty(d.Channels)
	d.Only = []string{}
	if d.Upstream == nil {
		d.Upstream = []UpstreamRef{}
	}
	for _, c := range Categories() {
		d.Cats = append(d.Cats, string(c))
		if p.o.Only[c] {
			d.Only = append(d.Only, string(c))
		}
	}
	if d.Init == nil {
		d.Init = [][2]string{}
	}
	if d.Steps == nil {
		d.Steps = []PageStep{}
	}
	// encoding/json escapes <, > and &, so the data cannot close its script element.
	data, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("writing the page's data: %w", err)
	}
	t, err := template.New("page").Parse(pageHTML)
	if err != nil {
		return fmt.Errorf("parsing the page template: %w", err)
	}
	err = t.Execute(w, struct {
		Title      string
		CSS        template.CSS
		JS         template.JS
		Data       template.JS
		Steps      int
		EventCount int
	}{p.o.Title, template.CSS(pageCSS), template.JS(pageJS), template.JS(data), len(p.Steps), p.Events})
	if err != nil {
		return fmt.Errorf("writing the page: %w", err)
	}
	return nil
}

// laneOrder draws the lanes as the messages flow: the API server and podConfig at the top,
// then the syncLoop (the channels are drawn just above it), the pod workers, and the
// goroutines that feed the syncLoop or serve the workers.
func (p *Page) laneOrder() []int {
	rank := func(track string) int {
		switch {
		case track == "scenario":
			return 0
		case track == "apiserver":
			return 1
		case track == "config":
			return 2
		case track == "kubelet":
			return 3
		case track == "syncLoop":
			return 10
		case strings.HasPrefix(track, "podWorker"):
			return 11
		case track == "runtime":
			return 12
		case track == "pleg":
			return 13
		case strings.HasPrefix(track, "prober"):
			return 14
		case track == "statusManager":
			return 15
		case track == "evictionManager":
			return 16
		case track == "cadvisor":
			return 17
		case track == "kernel":
			return 18
		case track == "nodeStatus":
			return 19
		}
		return 20
	}
	order := make([]int, len(p.Lanes))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := p.Lanes[order[i]], p.Lanes[order[j]]
		if rank(a) != rank(b) {
			return rank(a) < rank(b)
		}
		return a < b
	})
	return order
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
