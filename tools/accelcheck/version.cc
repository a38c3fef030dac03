// What `accelcheck --version` prints. The build's details come from
// tools/CMakeLists.txt, fixed when CMake configures.
#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/registry.h"
#include "validators/core/report.h"
#include "validators/core/text.h"

namespace accelcheck::cli {

std::string VersionText() {
  return Str(kToolName, " ", kToolVersion, "\n",           //
             "commit: ", ACCELCHECK_COMMIT, "\n",          //
             "compiler: ", ACCELCHECK_COMPILER, "\n",      //
             "build type: ", ACCELCHECK_BUILD_TYPE, "\n",  //
             "formats: ", FormatIds(), "\n");
}

}  // namespace accelcheck::cli
