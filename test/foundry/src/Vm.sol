// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// The cheatcodes this project uses (forge-std is not on npm); forge serves them at VM_ADDRESS.
interface Vm {
    function startBroadcast() external;
    function stopBroadcast() external;
    function envAddress(string calldata name) external view returns (address);
    function warp(uint256 timestamp) external;
    function prank(address sender) external;
}

address constant VM_ADDRESS = address(uint160(uint256(keccak256("hevm cheat code"))));
