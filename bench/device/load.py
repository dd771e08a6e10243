# GPU load for the device check: holds MEM_GIB of GPU memory and runs bf16
# matrix products for SECONDS (argv: SECONDS MEM_GIB).
import sys, time, torch
secs, gib = float(sys.argv[1]), float(sys.argv[2])
hold = torch.empty(int(gib * (1 << 30)), dtype=torch.uint8, device="cuda")
a = torch.randn(8192, 8192, dtype=torch.bfloat16, device="cuda")
b = torch.randn(8192, 8192, dtype=torch.bfloat16, device="cuda")
print("load: started", flush=True)
end = time.time() + secs
n = 0
while time.time() < end:
    for _ in range(20):
        c = a @ b
    torch.cuda.synchronize()
    n += 20
print(f"load: {n} products", flush=True)
