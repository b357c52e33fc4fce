package process

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// errNoSocketTable means the system has no /proc/net/tcp to read: who
// listens on a port cannot be told there.
var errNoSocketTable = errors.New("this system has no /proc/net/tcp")

// listener is a TCP socket in the LISTEN state.
type listener struct {
	ip    net.IP
	port  int
	inode uint64
}

// listenersOn returns the listening sockets that accept connections for
// addr (host:port): those bound to its address or to the wildcard address.
func listenersOn(addr string) ([]listener, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%q is not host:port: %w", addr, err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return nil, fmt.Errorf("%q has no port number", addr)
	}
	ips := hostIPs(host)
	var out []listener
	found := false
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		found = true
		for _, l := range parseSocketTable(data) {
			if l.port == port && (l.ip.IsUnspecified() || containsIP(ips, l.ip)) {
				out = append(out, l)
			}
		}
	}
	if !found {
		return nil, errNoSocketTable
	}
	return out, nil
}

// hostIPs resolves host (an IP or a name such as localhost).
func hostIPs(host string) []net.IP {
	if ip := net.ParseIP(host); ip != nil {
		return []net.IP{ip}
	}
	ips, _ := net.LookupIP(host)
	return ips
}

func containsIP(ips []net.IP, ip net.IP) bool {
	for _, x := range ips {
		if x.Equal(ip) {
			return true
		}
	}
	return false
}

// tcpListen is the state column's value for a listening socket.
const tcpListen = "0A"

// parseSocketTable reads the listening sockets of /proc/net/tcp or tcp6:
// "sl local_address rem_address st ... uid timeout inode ...", addresses
// as hex words in host byte order, then ":" and the port in hex.
func parseSocketTable(data []byte) []listener {
	var out []listener
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Scan() // the header
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[3] != tcpListen {
			continue
		}
		ipHex, portHex, ok := strings.Cut(f[1], ":")
		if !ok {
			continue
		}
		ip, err := procIP(ipHex)
		port, err2 := strconv.ParseUint(portHex, 16, 16)
		inode, err3 := strconv.ParseUint(f[9], 10, 64)
		if err != nil || err2 != nil || err3 != nil {
			continue
		}
		out = append(out, listener{ip: ip, port: int(port), inode: inode})
	}
	return out
}

// procIP decodes an address of /proc/net/tcp: 4 or 16 bytes printed as
// 32-bit words, each the hex value of the word as the kernel holds it
// (host byte order).
func procIP(s string) (net.IP, error) {
	if len(s) != 8 && len(s) != 32 {
		return nil, fmt.Errorf("bad address %q", s)
	}
	ip := make(net.IP, len(s)/2)
	for w := 0; w < len(s); w += 8 {
		v, err := strconv.ParseUint(s[w:w+8], 16, 32)
		if err != nil {
			return nil, fmt.Errorf("bad address %q", s)
		}
		binary.NativeEndian.PutUint32(ip[w/2:], uint32(v))
	}
	return ip, nil
}

// holdsSocket reports whether pid has one of inodes open.
func holdsSocket(pid int, inodes map[uint64]bool) bool {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return false
	}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(fmt.Sprintf("/proc/%d/fd", pid), fd.Name()))
		if err != nil {
			continue
		}
		if n, ok := socketInode(link); ok && inodes[n] {
			return true
		}
	}
	return false
}

// socketInode reads the inode of a "socket:[12345]" fd link.
func socketInode(link string) (uint64, bool) {
	s, ok := strings.CutPrefix(link, "socket:[")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSuffix(s, "]"), 10, 64)
	return n, err == nil
}

// pids lists the running processes.
func pids() []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid > 0 {
			out = append(out, pid)
		}
	}
	return out
}

// session returns the session id of pid (0 when it cannot be read).
func session(pid int) int {
	f, err := procStat(pid)
	if err != nil || len(f) < 4 {
		return 0
	}
	sid, _ := strconv.Atoi(f[3])
	return sid
}

// inodeSet returns the inodes of ls.
func inodeSet(ls []listener) map[uint64]bool {
	m := make(map[uint64]bool, len(ls))
	for _, l := range ls {
		m[l.inode] = true
	}
	return m
}

// ownedBy reports whether every listener of ls is held by pid or by a
// process of its session (a process started with Setsid leads its own
// session, so its children belong to it).
func ownedBy(ls []listener, pid int) bool {
	var members []int // the rest of pid's session, listed once when needed
	listed := false
	for _, l := range ls {
		one := map[uint64]bool{l.inode: true}
		if holdsSocket(pid, one) {
			continue
		}
		if !listed {
			members, listed = sessionOf(pid), true
		}
		if !slices.ContainsFunc(members, func(p int) bool { return holdsSocket(p, one) }) {
			return false
		}
	}
	return true
}

// sessionOf lists the other processes of the session pid leads.
func sessionOf(pid int) []int {
	var out []int
	for _, p := range pids() {
		if p != pid && session(p) == pid {
			out = append(out, p)
		}
	}
	return out
}

// describeHolders names the processes that hold ls, as "pid 123
// (/usr/bin/program)", best effort: a process of another user cannot be looked into.
func describeHolders(ls []listener) string {
	inodes := inodeSet(ls)
	var names []string
	for _, p := range pids() {
		if holdsSocket(p, inodes) {
			names = append(names, fmt.Sprintf("pid %d (%s)", p, commandLine(p)))
		}
	}
	if len(names) == 0 {
		return "a process runner cannot look into (another user's?)"
	}
	return strings.Join(names, ", ")
}

// commandLine returns the program pid runs (its first argument: the rest
// of another process's command line is none of runner's business and may
// hold its secrets).
func commandLine(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(b) == 0 {
		return "command unknown"
	}
	prog, _, _ := strings.Cut(string(b), "\x00")
	return prog
}
