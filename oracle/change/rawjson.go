package change

import (
	"encoding/json"

	"github.com/agent-oracle/oracle/internal/jsontok"
)

// rawNode is a JSON value as written: its tokens' bytes, the spacing before
// it and before its closing bracket, and every key of an object in order,
// duplicates included.
type rawNode struct {
	kind byte   // '{', '[', '"', or 'v' for a number or literal
	raw  []byte // a string's or scalar's token
	keys []string
	rawK [][]byte // the keys as written
	vals []*rawNode
	pre  []byte // spacing before the value
	end  []byte // spacing before the closing bracket
}

// order lists the object's keys in the order they first appear.
func (n *rawNode) order() []string {
	seen := map[string]bool{}
	var out []string
	for _, k := range n.keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// last returns the value JSON keeps for key k, the last one written, and
// how that key is written.
func (n *rawNode) last(k string) (*rawNode, []byte) {
	for i := len(n.keys) - 1; i >= 0; i-- {
		if n.keys[i] == k {
			return n.vals[i], n.rawK[i]
		}
	}
	return nil, nil
}

func (n *rawNode) duplicated() map[string]bool {
	seen := map[string]bool{}
	dups := map[string]bool{}
	for _, k := range n.keys {
		if seen[k] {
			dups[k] = true
		}
		seen[k] = true
	}
	return dups
}

// parseRaw parses a JSON text that is known to be valid; it returns nil if
// it is not.
func parseRaw(data []byte) *rawNode {
	p := &rawParser{data: data}
	n := p.value()
	if p.bad {
		return nil
	}
	return n
}

type rawParser struct {
	data []byte
	pos  int
	bad  bool
}

func (p *rawParser) space() []byte {
	start := p.pos
	p.pos = jsontok.SkipSpace(p.data, p.pos)
	return p.data[start:p.pos]
}

func (p *rawParser) peek() byte {
	if p.pos >= len(p.data) {
		p.bad = true
		return 0
	}
	return p.data[p.pos]
}

func (p *rawParser) value() *rawNode {
	n := &rawNode{pre: p.space()}
	if p.bad {
		return n
	}
	switch c := p.peek(); c {
	case '{':
		n.kind = '{'
		p.pos++
		first := p.space()
		if p.peek() == '}' {
			n.end = first
			p.pos++
			return n
		}
		keyPre := append([]byte{}, first...)
		for !p.bad {
			keyPre = append(keyPre, p.space()...)
			key := p.str()
			var k string
			if json.Unmarshal(key, &k) != nil {
				p.bad = true
				return n
			}
			p.space()
			if p.peek() != ':' {
				p.bad = true
				return n
			}
			p.pos++
			v := p.value()
			// the spacing of a member: before its key, around the colon
			v.pre = append(append(keyPre, ':'), v.pre...)
			keyPre = []byte{}
			n.keys = append(n.keys, k)
			n.rawK = append(n.rawK, key)
			n.vals = append(n.vals, v)
			n.end = p.space()
			switch p.peek() {
			case ',':
				p.pos++
			case '}':
				p.pos++
				return n
			default:
				p.bad = true
			}
		}
	case '[':
		n.kind = '['
		p.pos++
		if end := p.space(); p.peek() == ']' {
			n.end = end
			p.pos++
			return n
		}
		for !p.bad {
			n.vals = append(n.vals, p.value())
			n.end = p.space()
			switch p.peek() {
			case ',':
				p.pos++
			case ']':
				p.pos++
				return n
			default:
				p.bad = true
			}
		}
	case '"':
		n.kind = '"'
		n.raw = p.str()
	default:
		n.kind = 'v'
		start := p.pos
		for p.pos < len(p.data) {
			switch p.data[p.pos] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				n.raw = p.data[start:p.pos]
				return n
			}
			p.pos++
		}
		n.raw = p.data[start:p.pos]
	}
	return n
}

// str reads a string token, quotes included.
func (p *rawParser) str() []byte {
	if p.peek() != '"' {
		p.bad = true
		return nil
	}
	start := p.pos
	end, _ := jsontok.StringEnd(p.data, start)
	if end < 0 {
		p.bad = true
		return nil
	}
	p.pos = end
	return p.data[start:p.pos]
}
