// hardware_fault: what the GPU itself reports as broken or degraded:
// uncorrectable ECC errors, failed or pending row remapping, Xids of the
// hardware class within the window, a PCIe link that never reached its
// maximum generation or width in the window.
#include "diagnose/detector.h"
#include "diagnose/format.h"

namespace llmon::diagnose {
namespace {

struct Check {
  std::string expr;
  Severity severity;
  const char* what;  // printf: one %g for the value
  const char* advice;
};

class HardwareFault final : public Detector {
 public:
  std::string_view name() const override { return "hardware_fault"; }
  std::vector<std::string_view> kinds() const override { return {kind::kHardwareFault}; }

  void run(Context& ctx, std::vector<Finding>& out) override {
    const std::string w = ctx.window();
    const std::string xid = ctx.sel("llmon_gpu_xid_errors_total", "xid=~\"48|61|62|63|64|74|79|92|94|95|119|120\"");
    const std::vector<Check> checks = {
        {ctx.sel("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL") + " > 0", Severity::kCritical,
         "%g uncorrectable (double-bit) ECC errors since the driver loaded",
         "Uncorrectable memory errors kill the CUDA contexts that touch them: drain the GPU, reset it "
         "(`nvidia-smi -r`) so the row remap applies, and RMA it if errors return."},
        {"min_over_time(" + ctx.sel("llmon_gpu_up") + "[" + w + "]) == 0", Severity::kCritical,
         "stopped answering the driver in the window (llmon_gpu_up %g)",
         "A GPU that NVML cannot read any more has usually fallen off the bus (Xid 79: see DCGM_FI_DEV_XID_ERRORS "
         "and the kernel log) or lost power: drain the node, collect `nvidia-bug-report.sh`, reboot; a repeat "
         "takes the node out of service (reseat, check power and PCIe risers)."},
        {ctx.sel("DCGM_FI_DEV_ROW_REMAP_FAILURE") + " > 0", Severity::kCritical, "row remapping failed (%g)",
         "The GPU ran out of spare rows: it cannot repair its memory any more. Drain it and open an RMA."},
        {ctx.sel("DCGM_FI_DEV_ROW_REMAP_PENDING") + " > 0", Severity::kWarning, "a row remap is pending (%g)",
         "A memory row was retired but takes effect only after a GPU reset: drain the GPU and reset it."},
        // llmon's Xid counter is born at the first event with value 1, which
        // increase() cannot see: a series new in the window counts too.
        {"increase(" + xid + "[" + w + "]) > 0 or (" + xid + " unless " + xid + " offset " + w + ")",
         Severity::kCritical, "%g Xid errors of the hardware class in the window",
         "Hardware-class Xids (48 DBE, 63/64 remap, 74 NVLink, 79 fallen off the bus, 94/95 contained/uncontained "
         "ECC, 119/120 GSP): drain the node, collect `nvidia-bug-report.sh`, reset or reboot; 79 and repeated 74 "
         "usually need the node out of service."},
        {"max_over_time(" + ctx.sel("DCGM_FI_DEV_PCIE_LINK_GEN") + "[" + w + "]) < on(gpu, UUID) " +
             ctx.sel("DCGM_FI_DEV_PCIE_MAX_LINK_GEN"),
         Severity::kWarning, "PCIe link never above gen %g in the window, below its maximum",
         "The link trained below its generation: reseat the GPU or riser, check the slot's BIOS settings; "
         "host-device copies (data loading, checkpoints) run slower until fixed."},
        {ctx.sel("DCGM_FI_DEV_PCIE_LINK_WIDTH") + " < on(gpu, UUID) " + ctx.sel("DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH"),
         Severity::kWarning, "PCIe link at x%g, below its maximum width",
         "The link trained with fewer lanes: reseat the GPU or riser, inspect the slot; copies run at a fraction "
         "of their speed."},
    };
    for (const Check& c : checks) {
      for (const auto& s : ctx.query(c.expr)) {
        Finding f = ctx.finding(kind::kHardwareFault, c.severity);
        f.subject = subject_of(s, {"gpu", "UUID", "modelName", "pci_bus_id", "instance", "xid"});
        f.confidence = 0.95;
        f.summary = gpu_name(f.subject) + ": " + strf(c.what, s.v);
        if (auto x = f.subject.find("xid"); x != f.subject.end()) f.summary += " (Xid " + x->second + ")";
        f.evidence = {{c.expr, s.v, ""}};
        f.advice = c.advice;
        out.push_back(std::move(f));
      }
    }
  }
};

}  // namespace

std::unique_ptr<Detector> make_hardware_fault() {
  return std::make_unique<HardwareFault>();
}

}  // namespace llmon::diagnose
