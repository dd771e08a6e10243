# cost.py SECONDS CMD...: runs CMD for SECONDS, then SIGTERM; prints its CPU
# seconds (user+sys, from wait4), CPU share of one core and peak RSS.
import os, signal, subprocess, sys, time
secs = float(sys.argv[1]); cmd = sys.argv[2:]
t0 = time.time()
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(secs)
p.send_signal(signal.SIGTERM)
_, status, ru = os.wait4(p.pid, 0)
wall = time.time() - t0
cpu = ru.ru_utime + ru.ru_stime
print(f"{os.path.basename(cmd[0])}: wall {wall:.1f} s, cpu {cpu:.3f} s ({100*cpu/wall:.2f} % of a core), peak RSS {ru.ru_maxrss/1024:.1f} MiB, cmd: {' '.join(cmd)}")
