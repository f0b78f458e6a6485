#include "backends/vulkan/context.hpp"

namespace tileskip::vk {

Context::Context(const BackendOptions& options)
    : pipelineReport_(PipelineReportRequest::fromEnvironment()),
      instance_(options.validation),
      device_(instance_, options.deviceIndex, pipelineReport_),
      queue_(device_),
      pipelines_(device_, pipelineReport_) {}

Context::~Context() { device_.waitIdle(); }

}  // namespace tileskip::vk
