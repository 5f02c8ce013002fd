package strictyaml

import (
	"bytes"
	"errors"
	"io"

	"go.yaml.in/yaml/v3"
)

// maxDocuments bounds how many YAML documents one file may hold.
const maxDocuments = 1000

// ParseDocuments parses a multi-document stream (documents separated by ---), as kubectl
// accepts it, and returns the root of each non-empty document in file order. A file with no
// document at all is an error.
func ParseDocuments(file string, data []byte) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var roots []*yaml.Node
	for {
		var doc yaml.Node
		err := safeDecode(dec, &doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, syntaxError(file, data, err)
		}
		r := documentRoot(&doc)
		if r == nil || isImplicitNull(r) || r.Kind == yaml.ScalarNode && r.ShortTag() == nullTag {
			continue
		}
		if len(roots) == maxDocuments {
			return nil, &Error{Pos: nodePos(file, &doc), Msg: "more than 1000 YAML documents in one file"}
		}
		roots = append(roots, r)
	}
	if len(roots) == 0 {
		return nil, &Error{Pos: Pos{File: file, Line: 1, Column: 1}, Msg: "empty document"}
	}
	return roots, nil
}
