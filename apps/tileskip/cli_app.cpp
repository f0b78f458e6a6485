#include "cli_app.hpp"

#include <functional>
#include <iostream>
#include <new>
#include <sstream>

#include "core/model/error.hpp"
#include "core/io/provenance.hpp"
#include "core/io/report.hpp"

namespace tileskip::cli {

namespace {

// The one place that turns an exception into the documented exit code and message.
int exitCodeOf(const std::function<int()>& body, std::ostream& err) {
  try {
    return body();
  } catch (const Error& e) {
    err << "tileskip: error: " << e.what() << std::endl;
    return static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    err << "tileskip: error: out of host memory; choose a smaller problem" << std::endl;
    return static_cast<int>(ExitCode::Unavailable);
  } catch (const std::exception& e) {
    err << "tileskip: internal error: " << e.what() << std::endl;
    return static_cast<int>(ExitCode::Unavailable);
  }
}

// CLI11's help with every description wrapped to the output width (core/io/report.hpp), under
// the column the option names take, instead of one line as long as the text.
class WrappingFormatter : public CLI::Formatter {
 public:
  std::string make_option_desc(const CLI::Option* option) const override { return wrapped(option->get_description()); }
  std::string make_subcommand(const CLI::App* sub) const override {
    std::stringstream out;
    CLI::detail::format_help(out, sub->get_display_name(true), wrapped(sub->get_description()), column_width_);
    return out.str();
  }
  std::string make_description(const CLI::App* app) const override {
    return wrapText(CLI::Formatter::make_description(app), outputColumns());
  }

 private:
  std::string wrapped(const std::string& text) const {
    const std::size_t width = outputColumns();
    return width == 0 ? text : wrapText(text, width > column_width_ + 20 ? width - column_width_ : 20);
  }
};

}  // namespace

Cli::Cli() : app_("tileskip: tiled, warp-uniform zero-block skipping GEMM on GPUs (CUDA and Vulkan)") {
  app_.formatter(std::make_shared<WrappingFormatter>());  // before the subcommands, which take it from here
  app_.require_subcommand(1);
  app_.set_help_all_flag("--help-all", "help for every subcommand");
  app_.set_version_flag("--version", std::string("tileskip ") + toolVersion() + " (commit " + toolCommit() + ")",
                        "the tool's version and the git commit it was built from");
  // Text for people fits 100 columns (or COLUMNS); --wide, anywhere on the line, lifts the limit.
  app_.add_flag_callback("--wide", [] { setOutputColumns(0); },
                         "tables with every column and lines as long as their text, for a wide terminal or a file");
  commands_ = {addListCommand(app_), addBenchCommand(app_), addVerifyCommand(app_), addGenCommand(app_), addPackCommand(app_),
               addInspectCommand(app_), addRunCommand(app_),  addMlpCommand(app_), addViewCommand(app_), addTuneCommand(app_),
               addCompareCommand(app_)};
  for (const Command& command : commands_) command.app->fallthrough();  // so `tileskip bench --wide` reaches it
}

std::optional<int> Cli::parse(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  try {
    app_.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app_.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app_.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app_.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    app_.exit(e, out, err);
    err << "Run with --help for usage." << std::endl;
    return static_cast<int>(ExitCode::BadInput);
  }
  for (const Command& command : commands_) {
    if (!command.app->parsed()) continue;
    int code = exitCodeOf([&] {
      if (command.validate) command.validate();
      return 0;
    }, err);
    return code == 0 ? std::nullopt : std::optional<int>(code);
  }
  return static_cast<int>(ExitCode::BadInput);
}

int Cli::run(std::ostream& err) {
  for (const Command& command : commands_) {
    if (command.app->parsed()) return exitCodeOf(command.run, err);
  }
  return static_cast<int>(ExitCode::BadInput);
}

}  // namespace tileskip::cli
