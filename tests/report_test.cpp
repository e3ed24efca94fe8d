#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analyzer/report/report.h"

namespace gpulint {
namespace {

Location at(std::string path, uint32_t line, uint32_t column, uint32_t end_line,
            uint32_t end_column) {
  return {std::move(path), {}, {line, column}, {end_line, end_column}};
}

Diagnostic item_in_loop() {
  Diagnostic d;
  d.code = "GL101";
  d.name = "item-in-loop";
  d.message = "`.item()` in the training loop forces a host-device sync every step";
  d.help = "accumulate on the device and call `.item()` every N steps";
  d.location = at("train.py", 12, 14, 12, 25);
  d.location.span = {301, 312};
  d.source_line = "    total += loss.item()";
  return d;
}

Diagnostic with_related() {
  Diagnostic d;
  d.code = "GL102";
  d.name = "host-copy-in-loop";
  d.severity = Severity::Error;
  d.message = "`.cpu()` copies to the host every step";
  d.location = at("helpers.py", 3, 12, 3, 18);
  d.source_line = "    return x.cpu()";
  d.related.push_back({at("train.py", 40, 9, 40, 19), "called per step from here"});
  return d;
}

Diagnostic with_fix() {
  Diagnostic d;
  d.code = "GL303";
  d.name = "create-then-move";
  d.message = "`torch.zeros(n).cuda()` fills on the CPU, then copies";
  d.help = "pass `device=` to the factory";
  d.location = at("model.py", 7, 5, 7, 26);
  d.location.span = {120, 141};
  d.source_line = "x = torch.zeros(n).cuda()";
  d.fix = Fix{"Pass `device=` to `torch.zeros`",
              Applicability::Unsafe,
              {{{135, 141}, ""}, {{133, 134}, ", device=\"cuda\")"}}};
  return d;
}

ReportSummary files(size_t n) { return {n, {}}; }

TEST(RenderText, SingleFindingRuffLayout) {
  EXPECT_EQ(render_text({item_in_loop()}, files(1), {}),
            "train.py:12:14: GL101 [item-in-loop] `.item()` in the training loop forces a "
            "host-device sync every step\n"
            "  12 |     total += loss.item()\n"
            "     |              ^^^^^^^^^^^\n"
            "     = help: accumulate on the device and call `.item()` every N steps\n"
            "\n"
            "Found 1 finding in 1 file.\n");
}

TEST(RenderText, RelatedLocationsAreNotes) {
  EXPECT_EQ(render_text({with_related(), item_in_loop()}, files(3), {}),
            "helpers.py:3:12: GL102 [host-copy-in-loop] `.cpu()` copies to the host every step\n"
            "  3 |     return x.cpu()\n"
            "    |            ^^^^^^\n"
            "    = note: train.py:40:9: called per step from here\n"
            "\n"
            "train.py:12:14: GL101 [item-in-loop] `.item()` in the training loop forces a "
            "host-device sync every step\n"
            "  12 |     total += loss.item()\n"
            "     |              ^^^^^^^^^^^\n"
            "     = help: accumulate on the device and call `.item()` every N steps\n"
            "\n"
            "Found 2 findings in 2 files.\n");
}

TEST(RenderText, FixDoesNotChangeTheLayout) {
  EXPECT_EQ(render_text({with_fix()}, files(1), {}),
            "model.py:7:5: GL303 [create-then-move] `torch.zeros(n).cuda()` fills on the CPU, "
            "then copies\n"
            "  7 | x = torch.zeros(n).cuda()\n"
            "    |     ^^^^^^^^^^^^^^^^^^^^^\n"
            "    = help: pass `device=` to the factory\n"
            "\n"
            "Found 1 finding in 1 file.\n");
}

TEST(RenderText, TabsExpandSoCaretsLineUp) {
  Diagnostic d = item_in_loop();
  d.help.clear();
  // Columns count code points: the tab is one column, the span is `loss.item()`.
  d.source_line = "\ttotal +=\tloss.item()";
  d.location = at("train.py", 12, 11, 12, 22);
  EXPECT_EQ(render_text({d}, files(1), {}),
            "train.py:12:11: GL101 [item-in-loop] `.item()` in the training loop forces a "
            "host-device sync every step\n"
            "  12 |     total +=    loss.item()\n"
            "     |                 ^^^^^^^^^^^\n"
            "\n"
            "Found 1 finding in 1 file.\n");
}

TEST(RenderText, MultiLineSpanUnderlinesToEndOfFirstLine) {
  Diagnostic d = item_in_loop();
  d.code = "GL201";
  d.name = "dataloader-num-workers";
  d.message = "DataLoader without num_workers loads batches in the training process";
  d.help.clear();
  d.source_line = "loader = DataLoader(ds,";
  d.location = at("train.py", 5, 10, 7, 2);
  EXPECT_EQ(render_text({d}, files(1), {}),
            "train.py:5:10: GL201 [dataloader-num-workers] DataLoader without num_workers loads "
            "batches in the training process\n"
            "  5 | loader = DataLoader(ds,\n"
            "    |          ^^^^^^^^^^^^^^\n"
            "\n"
            "Found 1 finding in 1 file.\n");
}

TEST(RenderText, EmptySpanAtLineEndGetsOneCaret) {
  Diagnostic d = item_in_loop();
  d.code = "GL000";
  d.name = "parse-error";
  d.message = "expected `:`";
  d.help.clear();
  d.source_line = "for x in y";
  d.location = at("bad.py", 1, 11, 1, 11);
  EXPECT_EQ(render_text({d}, files(1), {}),
            "bad.py:1:11: GL000 [parse-error] expected `:`\n"
            "  1 | for x in y\n"
            "    |           ^\n"
            "\n"
            "Found 1 finding in 1 file.\n");
}

TEST(RenderText, WideCharactersTakeTwoCells) {
  Diagnostic d = item_in_loop();
  d.help.clear();
  d.source_line = "print(\"损失\", loss.item())";
  d.location = at("train.py", 3, 12, 3, 23);
  EXPECT_EQ(render_text({d}, files(1), {}),
            "train.py:3:12: GL101 [item-in-loop] `.item()` in the training loop forces a "
            "host-device sync every step\n"
            "  3 | print(\"损失\", loss.item())\n"
            "    |              ^^^^^^^^^^^\n"
            "\n"
            "Found 1 finding in 1 file.\n");
}

TEST(RenderText, ControlCharactersCannotReachTheTerminal) {
  Diagnostic d = item_in_loop();
  d.help.clear();
  d.source_line = "x = \x1b[2J; y.item()";
  d.location = at("t.py", 1, 11, 1, 19);
  EXPECT_EQ(render_text({d}, files(1), {}),
            "t.py:1:11: GL101 [item-in-loop] `.item()` in the training loop forces a "
            "host-device sync every step\n"
            "  1 | x = \u241b[2J; y.item()\n"
            "    |           ^^^^^^^^\n"
            "\n"
            "Found 1 finding in 1 file.\n");
}

TEST(RenderText, LongLineIsShownAsAWindow) {
  Diagnostic d = item_in_loop();
  d.help.clear();
  std::string line(5000, 'a');
  line.replace(2500, 11, "loss.item()");
  d.source_line = line;
  d.location = at("min.py", 1, 2501, 1, 2512);
  const std::string shown =
      "..." + std::string(40, 'a') + "loss.item()" + std::string(40, 'a') + "...";
  EXPECT_EQ(render_text({d}, files(1), {}),
            "min.py:1:2501: GL101 [item-in-loop] `.item()` in the training loop forces a "
            "host-device sync every step\n"
            "  1 | " +
                shown +
                "\n"
                "    | " +
                std::string(43, ' ') +
                "^^^^^^^^^^^\n"
                "\n"
                "Found 1 finding in 1 file.\n");
}

TEST(RenderText, LongLineNearItsStartHasNoLeadingEllipsis) {
  Diagnostic d = item_in_loop();
  d.help.clear();
  d.source_line = "y.item()" + std::string(5000, ' ');
  d.location = at("min.py", 1, 1, 1, 9);
  const std::string out = render_text({d}, files(1), {});
  EXPECT_NE(out.find("  1 | y.item()" + std::string(40, ' ') + "...\n    | ^^^^^^^^\n"),
            std::string::npos)
      << out;
}

TEST(RenderText, ManyFindingsOnOneLongLineRenderAsEachAlone) {
  std::string line(5000, 'a');
  std::vector<Diagnostic> many;
  for (uint32_t column : {3001u, 4001u, 4950u, 1001u, 11u}) {
    Diagnostic d = item_in_loop();
    d.help.clear();
    line.replace(column - 1, 11, "loss.item()");
    d.location = at("min.py", 1, column, 1, column + 11);
    many.push_back(d);
  }
  std::string expected;
  for (Diagnostic& d : many) {
    d.source_line = line;
    const std::string alone = render_text({d}, files(1), {});
    expected += alone.substr(0, alone.find("\n\n") + 2);
  }
  expected += "Found 5 findings in 1 file.\n";
  EXPECT_EQ(render_text(many, files(1), {}), expected);
}

TEST(RenderText, Summaries) {
  EXPECT_EQ(render_text({}, files(12), {}), "All checks passed! (12 files checked)\n");
  EXPECT_EQ(render_text({}, files(1), {}), "All checks passed! (1 file checked)\n");
  EXPECT_EQ(render_text({}, {2, {"a.py: not UTF-8"}}, {}),
            "No findings in 2 files checked.\nCould not check 1 path.\n");
  EXPECT_TRUE(render_text({item_in_loop()}, {3, {"a.py: x", "b.py: y"}}, {})
                  .ends_with("\n\nFound 1 finding in 1 file.\nCould not check 2 paths.\n"));
}

TEST(RenderText, ColorOnlyWhenAsked) {
  const std::string plain = render_text({item_in_loop()}, files(1), {});
  EXPECT_EQ(plain.find('\x1b'), std::string::npos);
  const std::string colored = render_text({item_in_loop()}, files(1), {.color = true});
  EXPECT_NE(colored.find("\x1b[1mtrain.py\x1b[0m"), std::string::npos) << colored;
  EXPECT_NE(colored.find("\x1b[1;33mGL101\x1b[0m"), std::string::npos) << colored;
  EXPECT_NE(render_text({with_related()}, files(1), {.color = true}).find("\x1b[1;31mGL102"),
            std::string::npos);
}

TEST(RenderJson, GoldenWithRelatedAndFix) {
  const std::string expected = R"json({
  "tool": "gpulint",
  "version": "1.2.3",
  "diagnostics": [
    {
      "code": "GL102",
      "name": "host-copy-in-loop",
      "severity": "error",
      "message": "`.cpu()` copies to the host every step",
      "help": "",
      "path": "helpers.py",
      "line": 3,
      "column": 12,
      "end_line": 3,
      "end_column": 18,
      "related": [
        {
          "path": "train.py",
          "line": 40,
          "column": 9,
          "end_line": 40,
          "end_column": 19,
          "message": "called per step from here"
        }
      ]
    },
    {
      "code": "GL303",
      "name": "create-then-move",
      "severity": "warning",
      "message": "`torch.zeros(n).cuda()` fills on the CPU, then copies",
      "help": "pass `device=` to the factory",
      "path": "model.py",
      "line": 7,
      "column": 5,
      "end_line": 7,
      "end_column": 26,
      "related": [],
      "fix": {
        "message": "Pass `device=` to `torch.zeros`",
        "applicability": "unsafe",
        "edits": [
          {
            "start_byte": 135,
            "end_byte": 141,
            "replacement": ""
          },
          {
            "start_byte": 133,
            "end_byte": 134,
            "replacement": ", device=\"cuda\")"
          }
        ]
      }
    },
    {
      "code": "GL101",
      "name": "item-in-loop",
      "severity": "warning",
      "message": "`.item()` in the training loop forces a host-device sync every step",
      "help": "accumulate on the device and call `.item()` every N steps",
      "path": "train.py",
      "line": 12,
      "column": 14,
      "end_line": 12,
      "end_column": 25,
      "related": []
    },
    {
      "code": "GL101",
      "name": "item-in-loop",
      "severity": "warning",
      "message": "`.item()` in the training loop forces a host-device sync every step",
      "help": "accumulate on the device and call `.item()` every N steps",
      "path": "train.py",
      "line": 12,
      "column": 14,
      "end_line": 12,
      "end_column": 25,
      "related": []
    }
  ],
  "summary": {
    "files_checked": 4,
    "findings": 4,
    "by_code": {
      "GL101": 2,
      "GL102": 1,
      "GL303": 1
    },
    "file_errors": [
      "bad.py: invalid UTF-8 at byte 7"
    ]
  }
}
)json";
  EXPECT_EQ(render_json({with_related(), with_fix(), item_in_loop(), item_in_loop()},
                        {4, {"bad.py: invalid UTF-8 at byte 7"}}, "1.2.3"),
            expected);
}

TEST(RenderJson, EmptyReport) {
  EXPECT_EQ(render_json({}, files(0), "0.1.0"), R"({
  "tool": "gpulint",
  "version": "0.1.0",
  "diagnostics": [],
  "summary": {
    "files_checked": 0,
    "findings": 0,
    "by_code": {},
    "file_errors": []
  }
}
)");
}

TEST(RenderJson, LongLinesTabsAndBadBytesStayValidJson) {
  Diagnostic d = item_in_loop();
  d.location.path = "caf\xe9.py";  // a Latin-1 file name, as Linux allows
  d.message = "tab\there";
  d.source_line = std::string(5000, 'x');
  const auto parsed = nlohmann::json::parse(render_json({d}, files(1), "0.1.0"));
  EXPECT_EQ(parsed["diagnostics"][0]["path"], "caf\xef\xbf\xbd.py");
  EXPECT_EQ(parsed["diagnostics"][0]["message"], "tab\there");
  EXPECT_FALSE(parsed["diagnostics"][0].contains("source_line"));
}

// After `gpulint verify`, a diagnostic carries what its experiment measured; the reporters
// pass it through unchanged and leave it out when nothing was measured.
Diagnostic with_cost() {
  Diagnostic d = item_in_loop();
  d.cost = Cost{"sync", 38.5, "us/step", "+38.5 us a step (x2.10)", "Test GPU"};
  return d;
}

TEST(RenderJson, CostIsAnObjectOnlyWhenMeasured) {
  const auto parsed =
      nlohmann::json::parse(render_json({with_cost(), item_in_loop()}, files(1), "0.1.0"));
  const auto& measured = parsed["diagnostics"][0];
  ASSERT_TRUE(measured.contains("cost"));
  EXPECT_EQ(measured["cost"]["experiment"], "sync");
  EXPECT_DOUBLE_EQ(measured["cost"]["value"].get<double>(), 38.5);
  EXPECT_EQ(measured["cost"]["unit"], "us/step");
  EXPECT_EQ(measured["cost"]["summary"], "+38.5 us a step (x2.10)");
  EXPECT_EQ(measured["cost"]["device"], "Test GPU");
  EXPECT_FALSE(parsed["diagnostics"][1].contains("cost"));
}

TEST(RenderText, CostIsANoteUnderTheHelp) {
  const std::string text = render_text({with_cost()}, files(1), {});
  EXPECT_NE(text.find(" = cost: +38.5 us a step (x2.10)\n"), std::string::npos) << text;
  EXPECT_EQ(render_text({item_in_loop()}, files(1), {}).find("cost:"), std::string::npos);
}

}  // namespace
}  // namespace gpulint
