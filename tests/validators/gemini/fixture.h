// A small valid scheduler IR and its frontend IR: one core, a 3x3 conv split
// into two tiles feeding a 2x2 max pool whose output goes to DRAM. Rule tests
// change one thing in it.
#pragma once

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "validators/core/bytes.h"
#include "validators/core/format.h"
#include "validators/core/sink.h"
#include "validators/gemini/decode.h"
#include "validators/gemini/frontend.h"

namespace accelcheck::gemini::testing {

// The frontend IR in `text`; nothing, with the first problem in `error`,
// when it does not parse.
inline std::optional<Frontend> FrontendFrom(const std::string& text, std::string* error) {
  DiagnosticSink sink(Profile{}, "frontend.json");
  auto frontend = ParseFrontend(AsBytes(text), ValidateContext{}, sink);
  if (!frontend && !sink.diagnostics().empty()) *error = sink.diagnostics().front().message;
  return frontend;
}

using nlohmann::json;

inline json Range4(int n, int c, int h, int w) { return json::array({n, c, h, w}); }
inline json Zero() { return Range4(0, 0, 0, 0); }

inline json DramSource(int transfer_id, json upper, int size) {
  return {{"core_id", -1},
          {"lower", Zero()},
          {"upper", upper},
          {"size", size},
          {"transfer_id", transfer_id},
          {"type", "DRAM"}};
}

inline json ExampleIr() {
  const json weight_upper = Range4(0, 7, 7, 8);  // K 8, C 8, RS 9: 8*8*9 + 32*8 = 832 bytes
  const json input_upper = Range4(0, 7, 3, 3);   // 1x8x4x4 int8: 128 bytes
  const json conv_out_source = {
      {"core_id", 0}, {"layer_name", "Conv_0"}, {"lower", Zero()}, {"upper", input_upper},
      {"size", 128},  {"transfer_id", 2},       {"type", "core"}};
  json conv = {
      {"workload_id", 0},
      {"layer_name", "Conv_0"},
      {"layer_type", "pe"},
      {"workload", {Zero(), input_upper}},
      {"ofmap_size", 128},
      {"time", 100},
      {"tile_padding_tblr", json::array({1, 1, 1, 1})},
      {"ring_buffer_info", json::array({json::array({0, 4096})})},
      {"tile_info",
       {{"tile_num_0",
         {{"ifmap_lower", Zero()},
          {"ifmap_upper", Range4(0, 7, 2, 3)},
          {"ofmap_lower", Zero()},
          {"ofmap_upper", Range4(0, 7, 1, 3)},
          {"single_tile_time_pred", 50.5},
          {"tile_padding_tblr", json::array({1, 0, 1, 1})},
          {"act_mini_tile", Range4(1, 1, 4, 6)},
          {"out_mini_tile", Range4(1, 8, 2, 4)},
          {"ci_cut_num", 1},
          {"cut_mode", "KH"},
          {"layer_name", "Conv_0"},
          {"loop_order", "KNHW"},
          {"mtc0_mtk0", json::array({1, 1})}}},
        {"tile_num_1",
         {{"ifmap_lower", Range4(0, 0, 1, 0)},
          {"ifmap_upper", Range4(0, 7, 3, 3)},
          {"ofmap_lower", Range4(0, 0, 2, 0)},
          {"ofmap_upper", Range4(0, 7, 3, 3)},
          {"single_tile_time_pred", 49.5},
          {"tile_padding_tblr", json::array({0, 1, 1, 1})},
          {"act_mini_tile", Range4(1, 1, 4, 6)},
          {"out_mini_tile", Range4(1, 8, 2, 4)},
          {"ci_cut_num", 1},
          {"cut_mode", "KH"},
          {"layer_name", "Conv_0"},
          {"loop_order", "KNHW"},
          {"mtc0_mtk0", json::array({1, 1})}}}}},
      {"ifmap", json::array({{{"align", 8},
                              {"bitwidth", 8},
                              {"lower", Zero()},
                              {"upper", input_upper},
                              {"size", 128},
                              {"transfer_id", json::array({0})}}})},
      {"ofmap",
       json::array(
           {{{"destination", json::array({{{"core_id", 0}, {"type", "core"}, {"workload_id", 1}}})},
             {"lower", Zero()},
             {"upper", input_upper},
             {"size", 128},
             {"transfer_id", 2}}})},
      {"weight",
       {{"lower", Zero()},
        {"upper", weight_upper},
        {"size", 832},
        {"transfer_id", json::array({1})}}},
      {"buffer", json::array({
                     {{"address", 0},
                      {"align", 8},
                      {"bitwidth", 8},
                      {"layer_name", "Conv_0"},
                      {"lower", Zero()},
                      {"upper", weight_upper},
                      {"newly_added", true},
                      {"size", 832},
                      {"source", json::array({DramSource(1, weight_upper, 832)})},
                      {"tensor_id", 0},
                      {"tensor_order", 0},
                      {"transfer_id", json::array({1})},
                      {"type", "weight"}},
                     {{"address", 832},
                      {"align", 8},
                      {"bitwidth", 8},
                      {"cur_wl_ifmap", true},
                      {"lower", Zero()},
                      {"upper", input_upper},
                      {"newly_added", true},
                      {"size", 128},
                      {"source", json::array({DramSource(0, input_upper, 128)})},
                      {"tensor_id", 1},
                      {"tensor_order", 1},
                      {"transfer_id", json::array({0})},
                      {"type", "ifmap"}},
                     {{"address", 1024},
                      {"align", 8},
                      {"bitwidth", 8},
                      {"lower", Zero()},
                      {"upper", input_upper},
                      {"newly_added", true},
                      {"size", 128},
                      {"source", json::array({conv_out_source})},
                      {"tensor_id", 2},
                      {"tensor_order", 3},
                      {"transfer_id", json::array({2})},
                      {"type", "ifmap"}},
                 })},
      {"wl0_buffer", json::array({{{"address", 0},
                                   {"align", 8},
                                   {"bitwidth", 8},
                                   {"layer_name", "Conv_0"},
                                   {"size", 832},
                                   {"source", "CORE"},
                                   {"tensor_order", nullptr},
                                   {"transfer_id", json::array({1})}}})},
  };
  const json pool_upper = Range4(0, 7, 1, 1);
  json pool = {
      {"workload_id", 1},
      {"layer_name", "Pool_1"},
      {"layer_type", "vp"},
      {"workload", {Zero(), pool_upper}},
      {"ofmap_size", 32},
      {"time", 50},
      {"tile_padding_tblr", json::array({0, 0, 0, 0})},
      {"ring_buffer_info", json::array({json::array({0, 4096})})},
      {"tile_info",
       {{"tile_num_0",
         {{"ifmap_lower", Zero()},
          {"ifmap_upper", input_upper},
          {"ofmap_lower", Zero()},
          {"ofmap_upper", pool_upper},
          {"single_tile_time_pred", 50.0},
          {"tile_padding_tblr", json::array({0, 0, 0, 0})}}}}},
      {"ifmap", json::array({{{"align", 8},
                              {"bitwidth", 8},
                              {"lower", Zero()},
                              {"upper", input_upper},
                              {"size", 128},
                              {"transfer_id", json::array({2})}}})},
      {"ofmap", json::array({{{"destination", json::array({{{"core_id", -1}, {"type", "DRAM"}}})},
                              {"lower", Zero()},
                              {"upper", pool_upper},
                              {"size", 32},
                              {"transfer_id", 3}}})},
      {"buffer", json::array({
                     {{"address", 1024},
                      {"align", 8},
                      {"bitwidth", 8},
                      {"cur_wl_ifmap", true},
                      {"lower", Zero()},
                      {"upper", input_upper},
                      {"newly_added", false},
                      {"size", 128},
                      {"source", json::array({conv_out_source})},
                      {"tensor_id", 2},
                      {"tensor_order", 3},
                      {"transfer_id", json::array({2})},
                      {"type", "ifmap"}},
                     {{"address", 0},
                      {"align", 8},
                      {"bitwidth", 8},
                      {"layer_name", "Pool_1"},
                      {"lower", Zero()},
                      {"upper", pool_upper},
                      {"size", 32},
                      {"start_send", true},
                      {"tensor_id", 3},
                      {"tensor_order", 2},
                      {"type", "ofmap"}},
                 })},
      {"wl0_buffer", nullptr},
  };
  const json conv_destination = json::array(
      {{{"core_id", 0}, {"layer_name", "Conv_0"}, {"type", "core"}, {"workload_id", 0}}});
  return {
      {"-1",
       {{"in", json::array({{{"core_id", 0},
                             {"workload_id", 1},
                             {"layer_name", "Pool_1"},
                             {"lower", Zero()},
                             {"upper", pool_upper},
                             {"transfer_id", 3}}})},
        {"out", json::array({{{"transfer_id", 0},
                              {"type", "fmap"},
                              {"lower", Zero()},
                              {"upper", input_upper},
                              {"size", 128},
                              {"related_ifmap", json::array()},
                              {"destination", conv_destination}},
                             {{"transfer_id", 1},
                              {"type", "weight"},
                              {"lower", Zero()},
                              {"upper", weight_upper},
                              {"size", 832},
                              {"related_ifmap", json::array()},
                              {"destination", conv_destination}}})}}},
      {"0", json::array({conv, pool})},
      {"buffersize", 4096},
      {"top_batch_cut", 1},
      {"xlen", 1},
      {"ylen", 1},
  };
}

inline json ExampleFrontend() {
  return {
      {"Conv_0",
       {{"layer_index", 0},
        {"name", "Conv_0"},
        {"operation", "conv2d"},
        {"input_shape", json::array({Range4(1, 8, 4, 4), Range4(8, 8, 3, 3)})},
        {"output_shape", json::array({Range4(1, 8, 4, 4)})},
        {"kernel_size", json::array({3, 3})},
        {"stride", json::array({1, 1})},
        {"padding", json::array({1, 1, 1, 1})},
        {"previous_layer", json::array({"input1", "constant_0"})},
        {"next_layer", json::array({"Pool_1"})}}},
      {"Pool_1",
       {{"layer_index", 1},
        {"name", "Pool_1"},
        {"operation", "max_pool2d"},
        {"input_shape", json::array({Range4(1, 8, 4, 4)})},
        {"output_shape", json::array({Range4(1, 8, 2, 2)})},
        {"pool_size", json::array({2, 2})},
        {"stride", json::array({2, 2})},
        {"padding", json::array({0, 0, 0, 0})},
        {"previous_layer", json::array({"Conv_0"})},
        {"next_layer", json::array({"output1"})}}},
  };
}

// Decodes an IR document that the test expects to decode.
inline Ir DecodeText(const std::string& text) {
  Ir ir;
  DiagnosticSink sink(Profile{}, "example");
  EXPECT_TRUE(DecodeIr(AsBytes(text), Limits{}, sink, &ir));
  return ir;
}
inline Ir Decode(const json& doc) { return DecodeText(doc.dump()); }

}  // namespace accelcheck::gemini::testing
