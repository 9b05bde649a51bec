# lit test format for a fluxion-gen built with ASan and UBSan
# (FLUXION_SANITIZE=ON; lit.cfg.py selects it from the site config).
#
# A sanitizer report must fail the test even where a RUN line expects the
# program to fail (lit's `not` accepts any non-zero status, a sanitizer's
# exit or abort included) or pipes its error output into FileCheck. So each
# test's programs write their reports to files of their own (the sanitizers'
# log_path option), and a test that leaves one fails and shows it.
import glob
import os

import lit.formats
import lit.Test

_OPTIONS = ("ASAN_OPTIONS", "UBSAN_OPTIONS")


class FailOnSanitizerReports(lit.formats.ShTest):
    def __init__(self, report_dir):
        super().__init__(execute_external=False)
        self.report_dir = report_dir

    def execute(self, test, lit_config):
        prefix = os.path.join(self.report_dir, "_".join(test.path_in_suite))
        pattern = glob.escape(prefix) + ".*"
        for old in glob.glob(pattern):
            os.remove(old)
        # Each worker process runs one test at a time: the directory's
        # environment can be set for this test and restored afterwards.
        env = test.config.environment
        saved = {var: env.get(var) for var in _OPTIONS}
        for var, value in saved.items():
            # The caller's options first, so that log_path is this test's.
            env[var] = ":".join(o for o in (value, "log_path=" + prefix) if o)
        try:
            result = super().execute(test, lit_config)
        finally:
            for var, value in saved.items():
                if value is None:
                    env.pop(var, None)
                else:
                    env[var] = value
        reports = sorted(glob.glob(pattern))
        if not reports:
            return result
        if isinstance(result, tuple):
            result = lit.Test.Result(*result)
        text = []
        for path in reports:
            with open(path, errors="replace") as f:
                text.append("== %s\n%s" % (path, f.read()))
        return lit.Test.Result(
            lit.Test.FAIL,
            "%s\n\nSanitizer reports:\n%s" % (result.output, "\n".join(text)))
