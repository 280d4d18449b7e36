// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// Exercises every way a call can end: a storage write and read, an event, and the three revert
/// encodings (Error(string), a custom error, Panic(uint256)).
contract Revert {
    error Unauthorized(address caller, uint256 code);

    event Stored(address indexed by, uint256 value);

    uint256 public value;
    mapping(address => uint256) public balances;

    function store(uint256 v) external {
        value = v;
        balances[msg.sender] += v;
        emit Stored(msg.sender, v);
    }

    function failRequire() external pure {
        require(false, "reason");
    }

    function failCustom() external view {
        revert Unauthorized(msg.sender, 42);
    }

    function divide(uint256 a, uint256 b) external pure returns (uint256) {
        return a / b;
    }

    function failAssert() external pure {
        assert(false);
    }

    /// Burns gas in a loop, then calls itself through an external call (so estimates must leave room for 63/64).
    function nested(uint256 depth) external returns (uint256) {
        value = depth;
        if (depth == 0) return 0;
        return this.nested(depth - 1) + 1;
    }
}
