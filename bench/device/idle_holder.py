# Holds GIB of GPU memory without computing, for SECONDS (argv: SECONDS GIB).
import sys, time, torch
x = torch.empty(int(float(sys.argv[2]) * (1 << 30)), dtype=torch.uint8, device="cuda")
torch.cuda.synchronize()
print("holder: ready", flush=True)
time.sleep(float(sys.argv[1]))
