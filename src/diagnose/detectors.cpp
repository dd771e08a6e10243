// The registry: one line per detector.
#include "diagnose/detector.h"

namespace llmon::diagnose {

std::unique_ptr<Detector> make_idle_gpu();
std::unique_ptr<Detector> make_throttling();
std::unique_ptr<Detector> make_memory();
std::unique_ptr<Detector> make_hardware_fault();
std::unique_ptr<Detector> make_input_bound();
std::unique_ptr<Detector> make_straggler();
std::unique_ptr<Detector> make_leak();
std::unique_ptr<Detector> make_communication_bound();
std::unique_ptr<Detector> make_checkpoint_slow();
std::unique_ptr<Detector> make_disk_saturation();
std::unique_ptr<Detector> make_network_saturation();
std::unique_ptr<Detector> make_cooling_degradation();

std::vector<std::unique_ptr<Detector>> builtin_detectors() {
  std::vector<std::unique_ptr<Detector>> d;
  d.push_back(make_straggler());  // first: it names the cause other detectors see as a symptom
  d.push_back(make_leak());
  d.push_back(make_hardware_fault());
  d.push_back(make_memory());
  d.push_back(make_throttling());
  d.push_back(make_input_bound());
  d.push_back(make_idle_gpu());
  d.push_back(make_communication_bound());
  d.push_back(make_checkpoint_slow());
  d.push_back(make_disk_saturation());
  d.push_back(make_network_saturation());
  d.push_back(make_cooling_degradation());
  return d;
}

}  // namespace llmon::diagnose
