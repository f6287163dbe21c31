package main

import (
	"reflect"
	"strings"
	"testing"
)

func TestCommands(t *testing.T) {
	tl := tools{bin: "/tmp/b", taskset: true, cpu: 1}
	plan := newNetPlan("0f", "10.232.7")
	shm1, shm2 := shmCases()[0], shmCases()[1]
	net1, net2 := netCases("1gbit")[0], netCases("1gbit")[1]
	tests := []struct {
		name string
		got  command
		want string
	}{
		{"shm real", realCommand(tl, shm1, nil, "cg", "A", 2),
			"$BIN/gompirun -np 2 $BIN/cg -class A"},
		{"net real", realCommand(tl, net2, &plan, "cg", "A", 2),
			"$BIN/gompirun -np 2 -hosts gompi-acc-0f-a,gompi-acc-0f-b -launcher 'ip netns exec' -iface ga0fbr $BIN/cg -class A"},
		{"shm 1 core", predictedCommand(tl, shm1, "m.json", "cg", "A", 2),
			"GOMAXPROCS=1 taskset -c 1 $BIN/gompirun -np 1 -virtual 2 -machine m.json $BIN/cg -class A"},
		{"shm 2 cores", predictedCommand(tl, shm2, "m.json", "cg", "A", 2),
			"$BIN/gompirun -np 2 -virtual 2 -machine m.json $BIN/cg -class A"},
		{"net 1 core", predictedCommand(tl, net1, "/tmp/b/machine-net-1gbit.json", "ep", "S", 4),
			"GOMAXPROCS=1 taskset -c 1 $BIN/gompirun -np 1 -virtual 4 -machine $BIN/machine-net-1gbit.json $BIN/ep -class S"},
		{"net 2 cores", predictedCommand(tl, net2, "m.json", "ep", "S", 4),
			"$BIN/gompirun -np 4 -virtual 4 -machine m.json $BIN/ep -class S"},
		{"calibrate shm", calibrateCommand(tl, nil, "/tmp/b/machine-shm.json"),
			"$BIN/gompirun -calibrate $BIN/machine-shm.json"},
		{"calibrate net", calibrateCommand(tl, &plan, "m.json"),
			"$BIN/gompirun -calibrate m.json -hosts gompi-acc-0f-a,gompi-acc-0f-b -launcher 'ip netns exec' -iface ga0fbr"},
	}
	for _, tc := range tests {
		if got := tc.got.show(tl.bin); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// TestOneCoreWithoutTaskset: the harness pins the job itself, and the
// command line is the same but for taskset.
func TestOneCoreWithoutTaskset(t *testing.T) {
	tl := tools{bin: "/tmp/b", cpu: 3}
	c := predictedCommand(tl, shmCases()[0], "m.json", "is", "A", 2)
	if !c.Pinned || c.CPU != 3 || !reflect.DeepEqual(c.Env, []string{"GOMAXPROCS=1"}) || c.Args[0] != "/tmp/b/gompirun" {
		t.Errorf("command %+v, want gompirun pinned to CPU 3 with GOMAXPROCS=1", c)
	}
	if got := c.show(tl.bin); !strings.HasPrefix(got, "(pinned to CPU 3 by sched_setaffinity) GOMAXPROCS=1 $BIN/gompirun -np 1") {
		t.Errorf("shown as %s", got)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"-np": "-np", "ip netns exec": "'ip netns exec'", "": "''", "it's": `'it'\''s'`, "a=b,c:1": "a=b,c:1", "$HOME": "'$HOME'",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
