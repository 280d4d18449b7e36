// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// The allowance part of an ERC-20, for anvil_setERC20Allowance.
contract AllowanceToken {
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        return true;
    }
}
