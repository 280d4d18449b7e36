// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A minimal token for tracing tests: storage writes, an event, and a call into another contract.
contract TraceToken {
    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 value);

    constructor() {
        balanceOf[msg.sender] = 1_000_000;
    }

    function transfer(address to, uint256 value) external returns (bool) {
        require(balanceOf[msg.sender] >= value, "insufficient balance");
        balanceOf[msg.sender] -= value;
        balanceOf[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }
}

/// Forwards a balance query to a token, so that traces show a nested call.
contract TraceForwarder {
    function balanceIn(TraceToken token, address who) external view returns (uint256) {
        return token.balanceOf(who);
    }
}
