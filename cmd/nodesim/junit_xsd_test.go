package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// A small checker of XML against the shape an XSD of global elements declares: each
// element's attributes (no undeclared one, every required one), its child elements in the
// order and numbers of its sequence, and text only where the type is mixed or a string. It
// is enough for the JUnit schema, which uses nothing else, and needs no cgo.

type xsdSchema struct {
	Elements []xsdElement `xml:"element"`
}

type xsdElement struct {
	Name      string `xml:"name,attr"`
	Ref       string `xml:"ref,attr"`
	Type      string `xml:"type,attr"`
	MinOccurs string `xml:"minOccurs,attr"`
	MaxOccurs string `xml:"maxOccurs,attr"`
	Complex   *struct {
		Mixed      bool         `xml:"mixed,attr"`
		Sequence   []xsdElement `xml:"sequence>element"`
		Attributes []struct {
			Name string `xml:"name,attr"`
			Use  string `xml:"use,attr"`
		} `xml:"attribute"`
	} `xml:"complexType"`
}

type xmlNode struct {
	name     string
	attrs    []xml.Attr
	children []*xmlNode
	text     string
}

func loadXSD(t *testing.T, path string) map[string]*xsdElement {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s xsdSchema
	if err := xml.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	decls := map[string]*xsdElement{}
	for i := range s.Elements {
		decls[s.Elements[i].Name] = &s.Elements[i]
	}
	return decls
}

func parseXML(data []byte) (*xmlNode, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	var stack []*xmlNode
	var root *xmlNode
	for {
		tok, err := dec.Token()
		if err != nil {
			if root != nil && len(stack) == 0 && err.Error() == "EOF" {
				return root, nil
			}
			return nil, err
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			n := &xmlNode{name: tk.Name.Local, attrs: tk.Attr}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			} else if root != nil {
				return nil, fmt.Errorf("a second root element <%s>", n.name)
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(tk)
			}
		}
	}
}

func occurs(s string, def int) int {
	if s == "unbounded" {
		return 1 << 30
	}
	if s == "" {
		return def
	}
	n, _ := strconv.Atoi(s)
	return n
}

// checkXSD returns every way data departs from the schema.
func checkXSD(decls map[string]*xsdElement, data []byte) []string {
	root, err := parseXML(data)
	if err != nil {
		return []string{"not XML: " + err.Error()}
	}
	var problems []string
	var check func(n *xmlNode, path string)
	check = func(n *xmlNode, path string) {
		path += "/" + n.name
		d := decls[n.name]
		if d == nil {
			problems = append(problems, path+": no such element in the schema")
			return
		}
		if d.Complex == nil { // a simple type (xs:string): text only
			if len(n.attrs) > 0 || len(n.children) > 0 {
				problems = append(problems, path+": a "+d.Type+" element has attributes or children")
			}
			return
		}
		declared := map[string]string{}
		for _, a := range d.Complex.Attributes {
			declared[a.Name] = a.Use
		}
		have := map[string]bool{}
		for _, a := range n.attrs {
			have[a.Name.Local] = true
			if _, ok := declared[a.Name.Local]; !ok {
				problems = append(problems, fmt.Sprintf("%s: undeclared attribute %q", path, a.Name.Local))
			}
		}
		for name, use := range declared {
			if use == "required" && !have[name] {
				problems = append(problems, fmt.Sprintf("%s: required attribute %q missing", path, name))
			}
		}
		if !d.Complex.Mixed && strings.TrimSpace(n.text) != "" {
			problems = append(problems, path+": text in an element that is not mixed")
		}
		i := 0
		for _, p := range d.Complex.Sequence {
			count := 0
			for i < len(n.children) && n.children[i].name == p.Ref {
				count++
				i++
			}
			if lo, hi := occurs(p.MinOccurs, 1), occurs(p.MaxOccurs, 1); count < lo || count > hi {
				problems = append(problems, fmt.Sprintf("%s: %d <%s>, want %d to %d", path, count, p.Ref, lo, hi))
			}
		}
		if i < len(n.children) {
			problems = append(problems, fmt.Sprintf("%s: <%s> not allowed here by the sequence", path, n.children[i].name))
		}
		for _, c := range n.children {
			check(c, path)
		}
	}
	check(root, "")
	return problems
}

// The checker finds what it is for: a missing required attribute, an undeclared one,
// children out of the sequence's order, text where none may be, an unknown element.
func TestXSDCheckerCatchesErrors(t *testing.T) {
	decls := loadXSD(t, "testdata/junit-4.xsd")
	good := `<testsuites><testsuite name="s" tests="1"><testcase name="c"><failure message="m">why</failure><system-out>o</system-out></testcase></testsuite></testsuites>`
	if p := checkXSD(decls, []byte(good)); len(p) > 0 {
		t.Fatalf("a valid document refused: %v", p)
	}
	for _, bad := range []string{
		`<testsuites><testsuite tests="1"></testsuite></testsuites>`,                                                   // no name
		`<testsuites><testsuite name="s" tests="1" color="red"></testsuite></testsuites>`,                              // undeclared attribute
		`<testsuite name="s" tests="1"><testcase name="c"><system-out>o</system-out><failure/></testcase></testsuite>`, // order
		`<testsuite name="s" tests="1">text<testcase name="c"/></testsuite>`,                                           // text
		`<testsuite name="s" tests="1"><testcase name="c"><flaky/></testcase></testsuite>`,                             // unknown element
		`<testsuite name="s" tests="1"><properties/></testsuite>`,                                                      // empty properties
		`<testsuite name="s" tests="1"><testcase name="c"><skipped/><skipped/></testcase></testsuite>`,                 // twice
		`<testsuite name="s" tests="1"><system-out/><system-out/></testsuite>`,                                         // twice at suite level
		`<testsuite name="s" tests="1"><testcase name="c"><system-out a="b">o</system-out></testcase></testsuite>`,     // attribute on a string
	} {
		if p := checkXSD(decls, []byte(bad)); len(p) == 0 {
			t.Errorf("accepted %s", bad)
		}
	}
}
